/**
 * isIPSloppy against Kubernetes' own ParseIPSloppy (k8s.io/utils/net, Debian's
 * golang-k8s-utils-dev; test/checks/k8snet/main.go), which decides what an IP field of an
 * object may hold, over IPv4 and IPv6 forms well- and ill-formed. Without Go this is skipped
 * with the reason in its title (CI sets FLEETGATE_GO_TESTS_REQUIRED=1 so it fails instead).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isIPSloppy } from '../../src/checks/names.js';
import { askGoProgram, buildGoProgram, goUnavailable } from '../../scripts/go-lib.mjs';
import { goReference } from '../go-reference.js';

const SOURCE = fileURLToPath(new URL('./k8snet/main.go', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const reference = goReference('test/checks/ip-sloppy', "IP addresses agree with Kubernetes' ParseIPSloppy", goUnavailable(['k8s.io/utils/net'], ['golang-go', 'golang-k8s-utils-dev']));

const OCTETS = ['0', '1', '00', '01', '001', '0001', '255', '256', '0255', '00000000001', '1'.repeat(20), '', '-1', '+1', ' 1', '0x1', '１', '1e1', '099'];
const GROUPS = ['0', '1', 'ffff', 'FFFF', '0001', '00001', 'g', '12345', '', '1.2.3.4', '01.2.3.4', '1.2.3.256', '1.2.3'];
const IPV6 = [
  '::', '::1', '1::', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8:9', '1::2::3', '::ffff:1.2.3.4', '::ffff:01.2.3.4', '::FFFF:001.002.003.004',
  '1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:7:1.2.3.4', '1.2.3.4::', '::1.2.3', '::1.2.3.4.5', 'fe80::1%eth0', '[::1]', ':1', '1:', ':::',
  '1:2:3:4:5:6:7::', '::1:2:3:4:5:6:7', '::1:2:3:4:5:6:7:8', '1::1.2.3.4', '::0.0.0.0', ' ::1', '::1 ', '2001:db8::ff00:42:8329',
  '0000000000000001::', '::ffff:0000000001.2.3.4', '000012345::', '1:2:3:4:5:6:7:00001:9', '::00001.2.3.4', '0::0', '00::00',
];

function corpus(): string[] {
  const values = new Set<string>(IPV6);
  for (let position = 0; position < 4; position++) {
    for (const octet of OCTETS) {
      const parts = ['10', '20', '30', '40'];
      parts[position] = octet;
      values.add(parts.join('.'));
    }
  }
  for (const v of ['1.2.3', '1.2.3.4.5', '1.2.3.4.', '.1.2.3.4', '1..2.3', '', '1.2.3.4%eth0']) values.add(v);
  for (let position = 0; position < 8; position++) {
    for (const group of GROUPS) {
      const groups = ['1', '2', '3', '4', '5', '6', '7', '8'];
      groups[position] = group;
      values.add(groups.join(':'));
      values.add(`${groups.slice(0, position + 1).join(':')}::`);
      values.add(`::${groups.slice(position).join(':')}`);
    }
  }
  return [...values];
}

describe.skipIf(reference.skip)(reference.title, () => {
  it('gives ParseIPSloppy\'s verdict on every address of the corpus', () => {
    reference.assertAvailable();
    const values = corpus();
    const go = askGoProgram(buildGoProgram(SOURCE, 'k8s-net', ROOT), values);
    const disagreements = values.flatMap((value, i) =>
      isIPSloppy(value) === (go[i] === 'ok') ? [] : [`${JSON.stringify(value)}: ParseIPSloppy ${go[i]}; fleetgate ${isIPSloppy(value) ? 'ok' : 'err'}`],
    );
    expect(values.length).toBeGreaterThan(300);
    expect(disagreements).toEqual([]);
  });
});
