import { describe, expect, it } from 'vitest';
import { createEvidenceCollector } from './object-evidence.ts';
import { storedObjectFinding } from './stored-object-finding.ts';

const object = { apiVersion: 'x.example.com/v1', kind: 'Thing', name: 'a' };

describe('createEvidenceCollector', () => {
  it('places each effect of error severity at its fields, as schema paths, and counts the objects', () => {
    const collector = createEvidenceCollector();
    collector.addObject([
      storedObjectFinding('valueInvalid', 'bad', { object, version: 'v1', path: 'spec.ports[0].name' }),
      storedObjectFinding('recreateRefused', 'refused', { object, path: 'spec.a, spec.labels[app]' }),
      // A warning is no effect a rule of error severity could be about; a version unserved is no schema's.
      storedObjectFinding('defaultAddedOnRead', 'appears', { object, version: 'v1', path: 'spec.b' }),
      storedObjectFinding('readVersionUnserved', '404', { object, version: 'v1beta1' }),
    ]);
    collector.addObject([]);
    expect(collector.evidence()).toEqual({
      objects: 2,
      complete: true,
      affected: [{ version: 'v1', path: 'spec.ports[*].name' }, { path: 'spec.a' }, { path: 'spec.labels[*]' }],
      unplaced: false,
    });
  });

  it('cannot place a write refused for no field, nor what crdgate cannot see', () => {
    const refused = createEvidenceCollector();
    refused.addObject([storedObjectFinding('unchangedWriteRefused', 'refused', { object })]);
    expect(refused.evidence().unplaced).toBe(true);
    const unseen = createEvidenceCollector();
    unseen.addObject([storedObjectFinding('conversionUnseen', 'webhook', { object })]);
    expect(unseen.evidence().unplaced).toBe(true);
  });

  it('knows all the objects when given some, or when a listing says so, even of none', () => {
    expect(createEvidenceCollector().evidence().complete).toBe(false);
    const none = createEvidenceCollector();
    none.listed(true);
    expect(none.evidence()).toMatchObject({ objects: 0, complete: true });
    const cut = createEvidenceCollector();
    cut.addObject([]);
    cut.listed(false);
    expect(cut.evidence().complete).toBe(false);
  });
});
