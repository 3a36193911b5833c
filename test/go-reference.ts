/**
 * The gate every test against a Go reference goes through. Without the toolchain or a package
 * the test is skipped, with the reason in its title and a warning; with
 * FLEETGATE_GO_TESTS_REQUIRED=1 (set by .ci/run) it runs and fails instead, so CI never skips it.
 */
export interface GoReference {
  /** Whether to skip the suite: the reference cannot be built and CI does not require it. */
  skip: boolean;
  /** The suite's title, with the reason when skipped. */
  title: string;
  /** Throws the reason when the reference cannot be built; call it before building. */
  assertAvailable(): void;
}

/** @param unavailable why the reference cannot be built here (goUnavailable's answer), or undefined */
export function goReference(label: string, title: string, unavailable: string | undefined): GoReference {
  const skip = unavailable !== undefined && process.env.FLEETGATE_GO_TESTS_REQUIRED !== '1';
  if (skip) console.warn(`[${label}] SKIPPED: ${unavailable}`);
  return {
    skip,
    title: skip ? `${title} — SKIPPED: ${unavailable}` : title,
    assertAvailable: () => {
      if (unavailable !== undefined) throw new Error(`FLEETGATE_GO_TESTS_REQUIRED=1 but ${unavailable}`);
    },
  };
}
