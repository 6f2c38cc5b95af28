// The RADIUS server finds enrolled routers in the NAS table: by relay identity (the NAS's nasname)
// or by allocation, with its own secret; a deleted NAS is forgotten at once on this instance.
import { expect } from 'chai';
import radius from 'radius';
import { ensureDictionaries } from '../../../controller/radius/dictionary.js';
import { relayIdentity } from '../../../controller/modules/nas/db-nas-directory.js';
import { forEachDatabase } from '../../support/databases.js';
import { secretOf, startNasTest, type NasTest } from './nas-fixture.js';

/** A Status-Server request signed with `secret` (RFC 5997: Message-Authenticator required). */
function statusServer(secret: string): Buffer {
  ensureDictionaries();
  return radius.encode({
    code: 'Status-Server',
    secret,
    identifier: 7,
    attributes: [['NAS-Identifier', 'test']],
    add_message_authenticator: true,
  });
}

forEachDatabase('NAS directory for the RADIUS server', (database) => {
  let t: NasTest;
  beforeEach(async () => (t = await startNasTest(database)));
  // A set-up that failed leaves nothing to close (and must not close the previous test's twice).
  afterEach(async () => {
    const running = t;
    t = undefined as unknown as NasTest;
    await running?.t.close();
  });

  it('knows an enrolled NAS by its relay identity and by allocation, and forgets it once deleted', async () => {
    const site = await t.site('AAAA0001');
    const { nas } = services();
    expect(await nas.directory.lookup(relayIdentity(site.allocationId))).to.equal(null);

    // PENDING already counts: the app applies the script before it calls verify.
    const enrolled = await t.radius('POST', '/nas', {
      body: { router_serial: 'AAAA0001', apply_mode: 'app_apply' },
    });
    const secret = secretOf(enrolled.body.provisioning.script);
    const entry = { nasId: enrolled.body.nas.id, clientId: t.client.id, secret };
    expect(await nas.directory.lookup(relayIdentity(site.allocationId))).to.deep.equal(entry);
    expect(await nas.forAllocation(site.allocationId)).to.deep.equal(entry);
    expect(enrolled.body.nas.nasname).to.equal(relayIdentity(site.allocationId));

    // The RADIUS server answers a packet attributed to the relay identity, signed with the secret.
    const source = { address: relayIdentity(site.allocationId), port: 40000 };
    const reply = await services().radius.handle('auth', statusServer(secret), source);
    expect(reply).to.be.instanceOf(Buffer);
    expect(radius.decode({ packet: reply!, secret }).code).to.equal('Access-Accept');
    expect(
      await services().radius.handle('auth', statusServer('wrong-secret'), { ...source, port: 40001 }),
    ).to.equal(null);

    expect((await t.radius('DELETE', `/nas/${enrolled.body.nas.id}`)).status).to.equal(200);
    expect(await nas.directory.lookup(relayIdentity(site.allocationId))).to.equal(null);
    expect(await nas.forAllocation(site.allocationId)).to.equal(null);
    expect(await services().radius.handle('auth', statusServer(secret), { ...source, port: 40002 })).to.equal(
      null,
    );
  });

  it('answers null for an unknown source and an IPv4-mapped address the same as its IPv4 form', async () => {
    const { nas } = services();
    expect(await nas.directory.lookup('192.0.2.10')).to.equal(null);
    expect(await nas.directory.lookup('::ffff:192.0.2.10')).to.equal(null);
    expect(await nas.forAllocation('00000000-0000-0000-0000-000000000000')).to.equal(null);
  });

  const services = () => t.t.controller.services;
});
