// Backups, /file/read (raw and through node-routeros) and FTP.
import { expect } from 'chai';
import type { RouterOSAPI } from 'node-routeros';
import { BACKUP_MAGIC } from '../../routeros-sim/backup-file.js';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { WIN1252_UNDEFINED_BYTES } from '../../routeros-sim/win1252.js';
import { RawClient, connectApi, ftpTransfer, startSim } from './sim-helpers.js';

describe('routeros-sim backups and files', () => {
  let sim: RouterSim;
  let api: RouterOSAPI;
  let backup: Buffer;

  before(async () => {
    sim = await startSim({ version: '7.19', ftpPort: 0 });
    api = await connectApi(sim);
    await api.write('/system/backup/save', ['=name=nightly', '=dont-encrypt=yes']);
    backup = sim.state.readFile('nightly.backup') ?? Buffer.alloc(0);
  });
  after(async () => {
    await api.close();
    await sim.stop();
  });

  it('creates NAME.backup in /file with binary content of a few KB', async () => {
    const [file] = await api.write('/file/print', ['?name=nightly.backup']);
    expect(file).to.include({ name: 'nightly.backup', type: 'backup' });
    expect(Number(file?.size)).to.equal(backup.length).and.to.be.greaterThan(4096);
    expect(backup.subarray(0, 4).equals(BACKUP_MAGIC)).to.equal(true);
    expect(file).to.not.have.property('contents');
  });

  it('takes the backup size off free-hdd-space', async () => {
    const before = sim.state.freeHddBytes();
    await api.write('/system/backup/save', ['=name=second']);
    const [res] = await api.write('/system/resource/print', ['=.proplist=free-hdd-space']);
    expect(Number(res?.['free-hdd-space'])).to.equal(
      before - (sim.state.readFile('second.backup')?.length ?? 0),
    );
    await api.write('/file/remove', ['=.id=second.backup']);
    expect(sim.state.freeHddBytes()).to.equal(before);
  });

  it('serves /file/read chunks with the exact bytes on the wire', async () => {
    const raw = await RawClient.login(sim.port);
    const parts: Buffer[] = [];
    for (let offset = 0; offset < backup.length; offset += 3000) {
      raw.send(['/file/read', '=file=nightly.backup', `=offset=${offset}`, '=chunk-size=3000', '.tag=r']);
      const re = await raw.next();
      expect(re[0]?.toString()).to.equal('!re');
      const data = re.find((w) => w.subarray(0, 6).toString() === '=data=');
      parts.push((data ?? Buffer.alloc(6)).subarray(6));
      expect((await raw.next())[0]?.toString()).to.equal('!done');
    }
    expect(Buffer.concat(parts).equals(backup)).to.equal(true);
    raw.close();
  });

  it('loses the win1252-undefined bytes when /file/read goes through node-routeros', async () => {
    const [chunk] = await api.write('/file/read', [
      '=file=nightly.backup',
      '=offset=0',
      `=chunk-size=${backup.length}`,
    ]);
    const text = String(chunk?.data);
    // one character per byte survives, so the length matches...
    expect(text.length).to.equal(backup.length);
    // ...and win1252 re-encoding restores every byte except 0x81 0x8D 0x8F 0x90 0x9D (all read as U+FFFD)
    const lost = [...backup].filter((b) => WIN1252_UNDEFINED_BYTES.includes(b)).length;
    expect(lost).to.be.greaterThan(0);
    expect([...text].filter((c) => c === '\ufffd').length).to.equal(lost);
  });

  it('serves the backup bytes exactly over FTP and accepts uploads', async () => {
    const got = await ftpTransfer(sim.ftpPort ?? 0, { retr: 'nightly.backup' });
    expect(got.data?.equals(backup)).to.equal(true);
    const upload = Buffer.from([0, 1, 2, 0x81, 0x9d, 255]);
    const put = await ftpTransfer(sim.ftpPort ?? 0, { stor: 'restore.backup', data: upload });
    expect(put.replies.at(-2)).to.match(/^226/);
    expect(sim.state.readFile('restore.backup')?.equals(upload)).to.equal(true);
    const denied = await ftpTransfer(sim.ftpPort ?? 0, { retr: 'nightly.backup' }, 'admin', 'wrong');
    expect(denied.replies.at(-1)).to.match(/^530/);
  });

  it('runs scripts and makes leases static', async () => {
    const [script] = await api.write('/system/script/add', [
      '=name=ticketnet-probe',
      '=source=:log info probe',
    ]);
    await api.write('/system/script/run', [`=.id=${script?.ret ?? ''}`]);
    const [row] = await api.write('/system/script/print', ['?name=ticketnet-probe']);
    expect(row?.['run-count']).to.equal('1');
    const [lease] = await api.write('/ip/dhcp-server/lease/print', ['?dynamic=true', '=.proplist=.id']);
    await api.write('/ip/dhcp-server/lease/make-static', [`=.id=${lease?.['.id'] ?? ''}`]);
    const [after] = await api.write('/ip/dhcp-server/lease/print', [`?.id=${lease?.['.id'] ?? ''}`]);
    expect(after?.dynamic).to.equal('false');
  });
});
