/** This process's CPU time so far, user and system, in ms. */
export function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
