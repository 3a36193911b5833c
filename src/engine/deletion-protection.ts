/**
 * Karmada's resource deletion protection (pkg/webhook/resourcedeletionprotection): an object
 * labelled `resourcetemplate.karmada.io/deletion-protected: Always` may not be deleted. The
 * rule reads nothing but that label, so it is the same for every kind.
 */
import { FieldPath, type Cause } from './field.js';
import { forbidden } from './field-error.js';
import { isRecord } from '../util/is.js';

export const DELETION_PROTECTION_LABEL = 'resourcetemplate.karmada.io/deletion-protected';
/** The one value that protects; any other, `always` included, does not (as in Karmada). */
export const DELETION_PROTECTED = 'Always';
/** Karmada's words, which kubectl prints after `admission webhook "…" denied the request: `. */
export const DELETION_PROTECTED_MESSAGE = `This resource is protected, please make sure to remove the label: ${DELETION_PROTECTION_LABEL}`;

/** Karmada's path for its deletion protection webhook, which fleetgate serves too. */
export const DELETION_PROTECTION_PATH = '/validate-resourcedeletionprotection';

const LABEL_FIELD = FieldPath.of('metadata', 'labels').key(DELETION_PROTECTION_LABEL);

/** Why the object (the stored one, about to be deleted) may not be deleted, or undefined. */
export function deletionProtectionCause(object: unknown): Cause | undefined {
  const metadata = isRecord(object) ? object.metadata : undefined;
  const labels = isRecord(metadata) ? metadata.labels : undefined;
  if (!isRecord(labels) || labels[DELETION_PROTECTION_LABEL] !== DELETION_PROTECTED) return undefined;
  return forbidden(LABEL_FIELD, DELETION_PROTECTED_MESSAGE);
}
