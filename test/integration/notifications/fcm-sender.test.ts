import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { pino } from 'pino';
import { ManualClock } from '../../../controller/core/clock.js';
import {
  AccessTokenError,
  FCM_SCOPE,
  FcmConfigError,
  GoogleAccessTokens,
  type ServiceAccount,
} from '../../../controller/modules/notifications/fcm-auth.js';
import { FcmPushSender, type DeviceTokens } from '../../../controller/modules/notifications/fcm-sender.js';
import type { HttpRequest, HttpResponse } from '../../../controller/modules/notifications/http-client.js';
import { PushRejected, PushSkipped } from '../../../controller/modules/notifications/push-sender.js';
import { forEachDatabase } from '../../support/databases.js';
import { START_TIME } from '../../support/test-controller.js';
import { startWith } from './fixture.js';

const TOKEN_URI = 'https://oauth2.googleapis.com/token';
const SEND_URL = 'https://fcm.googleapis.com/v1/projects/tn-test/messages:send';

function serviceAccount(): { account: ServiceAccount; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    account: {
      project_id: 'tn-test',
      client_email: 'push@tn-test.iam.gserviceaccount.com',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      private_key_id: 'key-1',
      token_uri: TOKEN_URI,
    },
    publicKey,
  };
}

/** Answers like Google: a token at the token endpoint, per-device statuses at messages:send. */
class FakeGoogle {
  readonly requests: HttpRequest[] = [];
  tokenStatus = 200;
  tokensIssued = 0;
  /** Status of messages:send per device token (200 when absent). */
  deviceStatus = new Map<string, { status: number; body?: unknown }>();

  readonly http = async (req: HttpRequest): Promise<HttpResponse> => {
    this.requests.push(req);
    if (req.url === TOKEN_URI) {
      if (this.tokenStatus !== 200) return { status: this.tokenStatus, body: '{"error":"invalid_grant"}' };
      this.tokensIssued += 1;
      return {
        status: 200,
        body: JSON.stringify({ access_token: `ya29.t${this.tokensIssued}`, expires_in: 3599 }),
      };
    }
    const device = (JSON.parse(req.body) as { message: { token: string } }).message.token;
    const answer = this.deviceStatus.get(device) ?? {
      status: 200,
      body: { name: 'projects/tn-test/messages/1' },
    };
    return { status: answer.status, body: JSON.stringify(answer.body ?? {}) };
  };

  sends(): HttpRequest[] {
    return this.requests.filter((r) => r.url !== TOKEN_URI);
  }
}

class MemoryDevices implements DeviceTokens {
  constructor(readonly byRecipient: Map<string, string[]>) {}
  tokensOf(recipientId: string): Promise<string[]> {
    return Promise.resolve([...(this.byRecipient.get(recipientId) ?? [])]);
  }
  forget(token: string): Promise<void> {
    for (const [k, list] of this.byRecipient)
      this.byRecipient.set(
        k,
        list.filter((t) => t !== token),
      );
    return Promise.resolve();
  }
}

const unregistered = {
  status: 404,
  body: {
    error: {
      status: 'NOT_FOUND',
      details: [
        { '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' },
      ],
    },
  },
};

describe('FCM HTTP v1 push sender', () => {
  let google: FakeGoogle;
  let clock: ManualClock;
  let devices: MemoryDevices;
  let sa: ReturnType<typeof serviceAccount>;
  let sender: FcmPushSender;
  const message = {
    title: 'Premier client connecté',
    body: 'abc sur hap',
    data: { type: 'RADIUS_PREMIERE_AUTH', rank: '1' },
  };

  before(() => (sa = serviceAccount()));
  beforeEach(() => {
    google = new FakeGoogle();
    clock = new ManualClock(START_TIME);
    devices = new MemoryDevices(new Map([['client-1', ['device-a']]]));
    sender = new FcmPushSender({
      projectId: 'tn-test',
      tokens: new GoogleAccessTokens(sa.account, google.http, clock),
      http: google.http,
      devices,
      logger: pino({ level: 'silent' }),
    });
  });

  it('gets an access token with a JWT signed RS256 by the service account, then posts the message', async () => {
    await sender.send('client-1', message);
    expect(google.requests.map((r) => [r.method, r.url])).to.deep.equal([
      ['POST', TOKEN_URI],
      ['POST', SEND_URL],
    ]);
    const [tokenReq, sendReq] = google.requests as [HttpRequest, HttpRequest];
    expect(tokenReq.headers['content-type']).to.equal('application/x-www-form-urlencoded');
    const form = new URLSearchParams(tokenReq.body);
    expect(form.get('grant_type')).to.equal('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const assertion = form.get('assertion')!;
    expect(decodeProtectedHeader(assertion)).to.deep.equal({ alg: 'RS256', typ: 'JWT', kid: 'key-1' });
    const { payload } = await jwtVerify(assertion, sa.publicKey, {
      issuer: sa.account.client_email,
      audience: TOKEN_URI,
      currentDate: clock.now(),
    });
    const iat = START_TIME.getTime() / 1000;
    expect(payload).to.deep.equal({
      scope: FCM_SCOPE,
      iss: sa.account.client_email,
      aud: TOKEN_URI,
      iat,
      exp: iat + 3600,
    });

    expect(sendReq.headers).to.deep.equal({
      authorization: 'Bearer ya29.t1',
      'content-type': 'application/json; charset=utf-8',
    });
    expect(JSON.parse(sendReq.body)).to.deep.equal({
      message: {
        token: 'device-a',
        notification: { title: message.title, body: message.body },
        data: message.data,
        android: { priority: 'HIGH' },
      },
    });
  });

  it('reuses the access token until a minute before it expires', async () => {
    await sender.send('client-1', message);
    clock.advance(3000 * 1000);
    await sender.send('client-1', message);
    expect(google.tokensIssued).to.equal(1);
    clock.advance(540 * 1000); // 59 s before expiry
    await sender.send('client-1', message);
    expect(google.tokensIssued).to.equal(2);
    expect(google.sends().map((r) => r.headers.authorization)).to.deep.equal([
      'Bearer ya29.t1',
      'Bearer ya29.t1',
      'Bearer ya29.t2',
    ]);
  });

  it('skips a recipient without devices, without any request', async () => {
    const err = await sender.send('nobody', message).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(PushSkipped);
    expect((err as PushSkipped).reason).to.equal('NO_DEVICE');
    expect(google.requests).to.deep.equal([]);
  });

  it('forgets an unregistered token; sent when another device took the push', async () => {
    devices.byRecipient.set('client-1', ['device-a', 'device-b']);
    google.deviceStatus.set('device-a', unregistered);
    await sender.send('client-1', message);
    expect(await devices.tokensOf('client-1')).to.deep.equal(['device-b']);

    google.deviceStatus.set('device-b', unregistered);
    const err = await sender.send('client-1', message).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(PushSkipped);
    expect((err as PushSkipped).reason).to.equal('NO_VALID_DEVICE');
    expect(await devices.tokensOf('client-1')).to.deep.equal([]);
  });

  it('fails for a retry on 5xx, 429 and 401 (dropping the cached token), for good on 400', async () => {
    for (const status of [503, 429, 500]) {
      google.deviceStatus.set('device-a', { status });
      const err = await sender.send('client-1', message).catch((e: unknown) => e);
      expect(err, String(status))
        .to.be.instanceOf(Error)
        .and.not.instanceOf(PushRejected)
        .and.not.instanceOf(PushSkipped);
      expect((err as Error).message).to.equal(`FCM ${status}`);
    }
    google.deviceStatus.set('device-a', { status: 401, body: { error: { status: 'UNAUTHENTICATED' } } });
    const auth = await sender.send('client-1', message).catch((e: unknown) => e);
    expect((auth as Error).message).to.equal('FCM 401 UNAUTHENTICATED');
    google.deviceStatus.delete('device-a');
    await sender.send('client-1', message);
    expect(google.tokensIssued).to.equal(2);

    google.deviceStatus.set('device-a', { status: 400, body: { error: { status: 'INVALID_ARGUMENT' } } });
    const bad = await sender.send('client-1', message).catch((e: unknown) => e);
    expect(bad).to.be.instanceOf(PushRejected);
    expect((bad as Error).message).to.equal('FCM 400 INVALID_ARGUMENT');
    expect(await devices.tokensOf('client-1')).to.deep.equal(['device-a']);
  });

  it('fails for a retry when the token endpoint refuses', async () => {
    google.tokenStatus = 400;
    const err = await sender.send('client-1', message).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(AccessTokenError);
    expect(google.sends()).to.deep.equal([]);
  });
});

forEachDatabase('FCM push through the controller', (database) => {
  const TOKEN = 'fcm-device-token-0123456789:APA91bExample';
  let dir: string;
  let sa: ReturnType<typeof serviceAccount>;
  before(() => (sa = serviceAccount()));
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tn-fcm-'))));

  it('sends a notification to the device the app registered', async () => {
    const path = join(dir, 'service-account.json');
    writeFileSync(path, JSON.stringify({ type: 'service_account', ...sa.account }));
    const google = new FakeGoogle();
    const t = await startWith(database, { httpClient: google.http }, { fcmServiceAccount: path });
    try {
      const client = await t.account('client');
      const admin = await t.admin();
      const reg = await t.request('PUT', '/api/v1/notifications/devices', {
        token: client.token,
        body: { token: TOKEN, platform: 'android' },
      });
      expect(reg.status).to.equal(200);
      await t.controller.services.notifications.notify({
        recipientId: client.id,
        type: 'RADIUS_AFFLUENCE',
        title: 'Affluence du 21/11/2026',
        body: '3 connexions',
        data: { date: '2026-11-21', connexions: 3 },
        dedupKey: 'affluence:2026-11-21',
        channels: ['in_app', 'push'],
      });
      const run = await t.request('POST', '/api/v1/admin/jobs/NOTIFICATIONS_PUSH/run', {
        token: admin.token,
      });
      expect(run.body.data.result).to.include({ sent: 1 });
      const sends = google.sends();
      expect(sends.map((r) => r.url)).to.deep.equal([SEND_URL]);
      expect(JSON.parse(sends[0]!.body).message).to.deep.include({
        token: TOKEN,
        data: { date: '2026-11-21', connexions: '3', type: 'RADIUS_AFFLUENCE' },
      });
      const row = await t.db.db.selectFrom('notifications').selectAll().executeTakeFirstOrThrow();
      expect(row).to.include({ push_state: 'SENT', push_attempts: 1 });
    } finally {
      await t.close();
    }
  });

  it('refuses to start with an unusable FCM configuration', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ client_email: 'x@y.z' }));
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ fcmProjectId: 'tn-test' }, /without TICKETNET_FCM_SERVICE_ACCOUNT/],
      [{ fcmServiceAccount: join(dir, 'missing.json') }, /cannot read/],
      [{ fcmServiceAccount: bad }, /private_key/],
    ];
    for (const [overrides, message] of cases) {
      const err = await startWith(database, {}, overrides).catch((e: unknown) => e);
      expect(err, JSON.stringify(overrides)).to.be.instanceOf(FcmConfigError);
      expect((err as Error).message).to.match(message);
    }
  });
});
