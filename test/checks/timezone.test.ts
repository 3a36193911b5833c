import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { timeZoneError } from '../../src/checks/timezone.js';

const ianaNames = Object.keys((createRequire(import.meta.url)('tzdata') as { zones: Record<string, unknown> }).zones);

/** IANA names as Go's time.LoadLocation (the controller and Karmada's webhook) reads them: exact case. */
describe('timeZoneError', () => {
  const valid = [
    'UTC', 'Etc/UTC', 'GMT', 'Etc/GMT+5', 'Etc/GMT-14',
    'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe',
    'America/Argentina/Buenos_Aires', 'America/North_Dakota/New_Salem', 'America/Port-au-Prince', 'Africa/Dar_es_Salaam',
    'Antarctica/DumontDUrville', 'America/Knox_IN', 'EST5EDT', 'CET', 'NZ-CHAT',
    // Links (aliases) in the IANA database.
    'US/Eastern', 'Asia/Calcutta', 'Europe/Kiev', 'Zulu', 'GB',
  ];
  const invalid = [
    'Mars/Olympus', 'Europe/Atlantis', 'America/NewYork', 'EST5EDT7', 'Berlin', '+02:00', 'UTC+2',
    // ICU matches case-insensitively; Go does not.
    'utc', 'europe/berlin', 'America/New_york', 'AMERICA/NEW_YORK', 'asia/Kolkata', 'us/Eastern', 'US/EASTERN',
    // ICU also knows names that are not IANA's, or no longer are: Java's three-letter IDs and removed links.
    'PST', 'IST', 'JST', 'CST', 'BST', 'SystemV/EST5EDT', 'US/Pacific-New', 'Canada/East-Saskatchewan',
    // Links in the wrong case, which a check of the shape alone let through.
    'Us/Eastern', 'ETC/UTC', 'Gb', 'America/Fort_wayne',
  ];
  it.each(valid)('accepts %j', (zone) => expect(timeZoneError(zone)).toBeUndefined());
  it.each(invalid)('rejects %j', (zone) => expect(timeZoneError(zone)).toBe(`unknown time zone ${zone}`));

  it('accepts every zone and link of the IANA database the runtime can use (all but Factory, its "-00" placeholder)', () => {
    expect(ianaNames.length).toBeGreaterThan(590);
    const refused = ianaNames.filter((zone) => timeZoneError(zone) !== undefined);
    expect(refused).toEqual(['Factory']);
  });

  it('rejects the empty name and Local, which Go reads as UTC and the controller host zone', () => {
    expect(timeZoneError('')).toContain('must be an IANA time zone name');
    expect(timeZoneError('Local')).toContain('"Local" depends on where the controller runs');
  });
});
