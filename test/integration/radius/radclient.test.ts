// Interoperability with a client nobody here wrote: FreeRADIUS's radclient (freeradius-utils).
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { forEachDatabase } from '../../support/databases.js';
import { SECRET, makeTickets, startHarness, type Harness } from './radius-harness.js';

const RADCLIENT = '/usr/bin/radclient';

/** Runs radclient with one request on stdin; resolves with its exit code and output. */
function radclient(port: number, type: 'auth' | 'acct', request: string, secret = SECRET) {
  return new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    const child = spawn(RADCLIENT, ['-x', '-r', '1', '-t', '2', `127.0.0.1:${port}`, type, secret], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
    child.stdin.end(`${request}\n`);
  });
}

forEachDatabase('RADIUS with FreeRADIUS radclient', (database) => {
  let h: Harness;
  before(function () {
    if (!existsSync(RADCLIENT)) {
      console.log(`      skipped: ${RADCLIENT} is not installed (apt-get install freeradius-utils)`);
      this.skip();
    }
  });
  beforeEach(async () => (h = await startHarness(database)));
  afterEach(async () => h?.close());

  const status = async (code: string) =>
    (
      await h.t.db.db
        .selectFrom('radius_tickets')
        .select('status')
        .where('code', '=', code)
        .executeTakeFirstOrThrow()
    ).status;

  it('authenticates PAP, with and without Message-Authenticator, and decodes our MikroTik attributes', async () => {
    const [code] = await makeTickets(h, { time: 3600, data: 2 ** 30 });
    const ok = await radclient(h.authPort, 'auth', `User-Name = "${code}", User-Password = "${code}"`);
    expect(ok.code, ok.out).to.equal(0);
    expect(ok.out).to.match(/Received Access-Accept/);
    expect(ok.out).to.match(/Mikrotik-Rate-Limit = "2M\/2M"/);
    expect(ok.out).to.match(/Mikrotik-Total-Limit = 1073741824/);
    expect(ok.out).to.match(/Session-Timeout = 3600/);
    expect(ok.out).to.match(/Acct-Interim-Interval = 300/);
    expect(await status(code!)).to.equal('USED');

    const withMa = await radclient(
      h.authPort,
      'auth',
      `User-Name = "${code}", User-Password = "${code}", Message-Authenticator = 0x00`,
    );
    expect(withMa.code, withMa.out).to.equal(0);
    expect(withMa.out).to.match(/Received Access-Accept/);

    const bad = await radclient(h.authPort, 'auth', `User-Name = "${code}", User-Password = "wrong"`);
    expect(bad.out).to.match(/Received Access-Reject/);
    expect(bad.out).to.match(/Reply-Message = "Invalid code or password"/);
  });

  it('authenticates CHAP (challenge in the Request Authenticator)', async () => {
    const [code] = await makeTickets(h, {});
    const ok = await radclient(h.authPort, 'auth', `User-Name = "${code}", CHAP-Password = "${code}"`);
    expect(ok.code, ok.out).to.equal(0);
    expect(ok.out).to.match(/Received Access-Accept/);
    const bad = await radclient(h.authPort, 'auth', `User-Name = "${code}", CHAP-Password = "nope"`);
    expect(bad.out).to.match(/Received Access-Reject/);
  });

  it('takes accounting Start, Interim-Update and Stop', async () => {
    const [code] = await makeTickets(h, {});
    const base = `User-Name = "${code}", Acct-Session-Id = "rc-1", Calling-Station-Id = "02:00:00:00:00:09"`;
    for (const line of [
      `Acct-Status-Type = Start, ${base}`,
      `Acct-Status-Type = Interim-Update, ${base}, Acct-Input-Octets = 1000, Acct-Output-Octets = 5000, Acct-Session-Time = 60`,
      `Acct-Status-Type = Stop, ${base}, Acct-Input-Octets = 2000, Acct-Output-Octets = 8000, Acct-Session-Time = 90, Acct-Terminate-Cause = User-Request`,
    ]) {
      const res = await radclient(h.acctPort, 'acct', line);
      expect(res.code, res.out).to.equal(0);
      expect(res.out).to.match(/Received Accounting-Response/);
    }
    const s = await h.t.db.db.selectFrom('radius_sessions').selectAll().executeTakeFirstOrThrow();
    expect(s).to.include({ ticket_code: code, acct_session_id: 'rc-1', terminate_cause: 'User-Request' });
    expect(Number(s.total_bytes)).to.equal(10_000);
    expect(await status(code!)).to.equal('USED');
  });

  it('gets no answer with the wrong secret', async () => {
    const [code] = await makeTickets(h, {});
    const res = await radclient(
      h.acctPort,
      'acct',
      `Acct-Status-Type = Start, User-Name = "${code}", Acct-Session-Id = "x"`,
      'wrong',
    );
    expect(res.code).to.not.equal(0);
    expect(res.out).to.not.match(/Received Accounting-Response/);
  });
});
