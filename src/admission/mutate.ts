import { readKeysOf, readView, withUnreadParts } from '../contract/contract-reads.ts';
import { contractDefaulter } from '../contract/defaults/contract-defaulter.ts';
import { apiVersionOf } from '../contract/contract-definition.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import type { CompiledContract, ContractRegistry } from '../contract/registry.ts';
import { convertObject } from '../conversion/convert-object.ts';
import { createJsonPatch } from './json-patch.ts';
import { changesNothingDefaulted, unchangedAsSentAndInTheHub } from './judged-parts.ts';
import { VersionUnknownError, viewObject } from './object-errors.ts';
import type { AdmissionRequest } from './review.ts';
import { isVerdict, routeReview } from './route.ts';
import type { JudgingOptions } from './validate.ts';
import { allow, deny, patched, type Verdict } from './verdict.ts';

/**
 * The mutating webhook's decision: the contract's computed defaults as a JSONPatch against the object exactly
 * as sent. Defaults are written against the hub; a spoke object is defaulted through the hub and converted back,
 * so the patch applies to the version the API server sent. Idempotent by construction: a defaulted object
 * defaults to itself, so a second call (the API server may reinvoke) patches nothing.
 */
export function decideMutation(
  registry: ContractRegistry,
  request: AdmissionRequest,
  options: JudgingOptions = {},
): Verdict {
  const compiled = routeReview(registry, request);
  if (isVerdict(compiled)) return compiled;
  const defaults = contractDefaulter(compiled.contract);
  // DELETE carries no object to patch, and the status subresource ignores spec and metadata changes.
  const writesSpec = request.operation === 'CREATE' || (request.operation === 'UPDATE' && !request.subResource);
  if (!defaults || !writesSpec) return allow();
  try {
    const view = viewObject(compiled, request.object!, request.kind.version);
    // Defaults are not guesses about broken input: an object its schema rejects is left to the validating webhook.
    if (view.hub === undefined || compiled.validators.get(view.version)!(view.object).length > 0) return allow();
    // What the defaults see is as it was: they fill nothing now that they did not fill then (the webhook
    // configuration skips such updates by the same parts, in the hub).
    const oldView =
      request.operation === 'UPDATE' ? viewObject(compiled, request.oldObject!, request.kind.version) : undefined;
    if (
      !options.judgeUnchanged &&
      oldView?.hub &&
      unchangedAsSentAndInTheHub(oldView, view, (a, b) => changesNothingDefaulted(compiled.contract, a, b))
    )
      return allow();
    const reads = readKeysOf(compiled.contract);
    const shown = readView(reads, view.hub);
    const hub = withUnreadParts(reads, view.hub, shown, defaults(shown));
    const defaulted = backToVersion(compiled, hub, view.object, view.version);
    return patched(createJsonPatch(view.object, defaulted));
  } catch (error) {
    if (error instanceof VersionUnknownError) return deny('VERSION_UNKNOWN', error.message);
    throw error;
  }
}

function backToVersion(compiled: CompiledContract, hub: KubeObject, original: KubeObject, version: string): KubeObject {
  const { contract } = compiled;
  if (version === contract.hub) return hub;
  const converted = convertObject(contract, hub, apiVersionOf(contract, version));
  // A default the spoke cannot hold would land in the conversion stash; it is left to the hub-version call instead
  // (with matchPolicy Equivalent the API server sends the hub version), so the user's annotations stay as sent.
  const key = contract.conversionAnnotation;
  if (key === undefined) return converted;
  const annotations = { ...converted.metadata?.annotations };
  const originalValue = original.metadata?.annotations?.[key];
  if (originalValue === undefined) delete annotations[key];
  else annotations[key] = originalValue;
  const metadata = { ...converted.metadata };
  if (Object.keys(annotations).length > 0 || original.metadata?.annotations !== undefined)
    metadata.annotations = annotations;
  else delete metadata.annotations;
  return { ...converted, metadata };
}
