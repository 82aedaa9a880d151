import { metadataDeletionRule } from '../../index.ts';
import { annotations } from './types.ts';

// Data rather than a function, so the ValidatingAdmissionPolicy enforces it even while crdgate is down.
export const deletionProtection = metadataDeletionRule({ annotation: annotations.deletionProtection, equals: 'true' });
