export const GOPATH: string;
export function goUnavailable(goPackages: readonly string[], debianPackages: readonly string[]): string | undefined;
export function buildGoProgram(source: string, name: string, cwd: string): string;
export function askGoProgram(binary: string, inputs: readonly string[], args?: readonly string[]): string[];
