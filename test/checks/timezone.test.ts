import { describe, expect, it } from 'vitest';
import { timeZoneError } from '../../src/checks/timezone.js';

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
  ];
  it.each(valid)('accepts %j', (zone) => expect(timeZoneError(zone)).toBeUndefined());
  it.each(invalid)('rejects %j', (zone) => expect(timeZoneError(zone)).toBe(`unknown time zone ${zone}`));

  it('rejects the empty name and Local, which Go reads as UTC and the controller host zone', () => {
    expect(timeZoneError('')).toContain('must be an IANA time zone name');
    expect(timeZoneError('Local')).toContain('"Local" depends on where the controller runs');
  });
});
