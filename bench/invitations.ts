/**
 * `npm run bench:invitations [-- --count 100000 --mails 10000]` (issue 36, point 8):
 * 1. 100,000 invitations from one CSV through the dashboard's upload route of a
 *    running service, timed end to end against the goal of 10 s
 *    (bench/invitations-csv.ts);
 * 2. 10,000 invitations due at once, mailed through a local SMTP sink at an
 *    unthrottled rate: mails/s and the service's CPU per mail beside the same
 *    process idle over the same wall time (bench/invitations-mail.ts).
 * Exits 1 when the upload misses its goal. Each half also runs alone:
 * `npx tsx bench/invitations-csv.ts`, `npx tsx bench/invitations-mail.ts`.
 */
import { benchInvitationsCsv } from './invitations-csv.ts';
import { benchInvitationMails } from './invitations-mail.ts';
import { flag } from './support.ts';

const csv = await benchInvitationsCsv({ count: flag('count', 100_000) });
console.log('');
const mails = await benchInvitationMails({ count: flag('mails', 10_000) });
console.log('');
console.log(`Summary (Node ${process.version}):`);
console.log(`  CSV upload   ${csv.invitations.toLocaleString('en')} invitations accepted in ${csv.seconds.toFixed(2)} s (${Math.round(csv.perSecond).toLocaleString('en')}/s): goal ≤ ${csv.goalSeconds} s ${csv.met ? 'met' : 'MISSED'}`);
console.log(`  mails        ${mails.count.toLocaleString('en')} in ${mails.seconds.toFixed(1)} s (${Math.round(mails.mailsPerSecond).toLocaleString('en')}/s), service CPU ${Math.round(mails.cpuMicrosPerMail).toLocaleString('en')} µs per mail; idle baseline ${Math.round(mails.idleMicrosPerMail).toLocaleString('en')} µs per mail-equivalent`);
if (!csv.met) process.exitCode = 1;
