/**
 * What crdgate finds when it puts the objects a CRD stores through a new revision of it, with stable ids and
 * severities (docs/check.md, "The objects a revision must keep serving"). `unseen` marks what depends on
 * something crdgate cannot see (what etcd holds beyond what a read shows, which version each object is stored in,
 * a conversion webhook it cannot run): reported as such, never guessed, and never failing a run on its own.
 */
export const storedObjectRules = {
  fieldDroppedOnRead: {
    severity: 'error',
    finds:
      'a value the object holds is gone from every read (pruned by the new schema) and erased from etcd by its next write',
  },
  defaultAddedOnRead: {
    severity: 'warning',
    finds: 'a value the object does not hold appears on every read (a new default)',
  },
  valueChangedOnRead: {
    severity: 'error',
    finds: 'a value the object holds reads differently (a null replaced by a new default)',
  },
  readVersionUnserved: {
    severity: 'error',
    finds: 'the object was read in a version the revision no longer serves: those clients get 404',
  },
  unchangedWriteRefused: {
    severity: 'error',
    finds:
      'a write that changes nothing (a controller resync, crdgate migrate) is refused: what ratcheting does not spare',
  },
  labelWriteRefused: { severity: 'error', finds: 'a write that changes only a label is refused' },
  valueInvalid: {
    severity: 'error',
    finds:
      'a value the object holds (outside its status) no longer satisfies the schema or rules of a version it is read in: writes that change it are refused; writes that leave it as it is are accepted (ratcheting)',
  },
  statusValueInvalid: {
    severity: 'error',
    finds:
      "a status value the object holds no longer satisfies the schema or rules: the operator's own status writes that change it are refused (ratcheting spares it only while it stays as it is)",
  },
  statusWriteRefused: {
    severity: 'error',
    finds: "the operator's status write (one status field changed) is refused, where the old revision accepted it",
  },
  specWriteRefused: {
    severity: 'error',
    finds:
      'a write that changes one spec field the revision leaves alone is refused, where the old revision accepted it',
  },
  recreateRefused: {
    severity: 'error',
    finds: 'the object created again as it reads (a GitOps re-sync from nothing, a backup restore) is refused',
  },
  storedInRemovedVersion: {
    severity: 'error',
    finds:
      'the object is stored in a version the revision removes: the API server refuses the CRD update until crdgate migrate has run',
  },
  storedVersionsRefuseUpdate: {
    severity: 'error',
    finds:
      "status.storedVersions holds a version the revision removes: the API server refuses the CRD update (with crdgate migrate's plan)",
  },
  conversionFailed: {
    severity: 'error',
    finds: "the contract's conversion fails for the object to a served version or back",
  },
  conversionRoundTripLoss: {
    severity: 'error',
    finds: 'the object converted to a served version and back is not what it was',
  },
  objectUnreadable: {
    severity: 'error',
    finds:
      'the object is not of the CRD (another kind, or a version the old revision lacks) or the API server could not read it',
  },
  prunedFieldsMayReturn: {
    severity: 'warning',
    unseen: true,
    finds:
      'the new schema declares a field the old one pruned on read: etcd may still hold values there, which reads then show again',
  },
  readDefaultMayBeUnstored: {
    severity: 'warning',
    unseen: true,
    finds:
      'a default the old revision had is removed or changed: an object may show the old default on read without holding it in etcd, and then reads differently',
  },
  storedVersionAssumed: {
    severity: 'warning',
    unseen: true,
    finds:
      'objects may be stored in more than one version (status.storedVersions, or unknown): the prediction takes each to be stored in the old storage version',
  },
  conversionUnseen: {
    severity: 'warning',
    unseen: true,
    finds:
      "a read goes through the CRD's conversion webhook, which crdgate cannot run for a kind no contract owns: not predicted",
  },
} as const satisfies Record<string, { severity: 'error' | 'warning'; finds: string; unseen?: true }>;

export type StoredObjectRule = keyof typeof storedObjectRules;
