import { expect } from 'chai';
import { hostname } from 'node:os';
import { createLogger } from '../../../agent/logger.js';

/** A logger writing into an array; the lines parsed back. */
function recording(level?: string) {
  const lines: string[] = [];
  const logger = createLogger(level, (line) => void lines.push(line));
  const parsed = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, lines, parsed };
}

describe('agent logger', () => {
  it("writes one JSON line per call in pino's shape: level, time, pid, hostname, name, fields, msg", () => {
    const { logger, lines, parsed } = recording('info');
    const before = Date.now();
    logger.info({ id: 'c-1', kind: 'telemetry' }, 'report stored');
    expect(lines).to.have.length(1);
    expect(lines[0]!.endsWith('}\n')).to.equal(true);
    const [line] = parsed();
    expect(Object.keys(line!)).to.deep.equal([
      'level',
      'time',
      'pid',
      'hostname',
      'name',
      'id',
      'kind',
      'msg',
    ]);
    expect(line).to.include({
      level: 30,
      pid: process.pid,
      hostname: hostname(),
      name: 'ticketnet-agent',
      id: 'c-1',
      kind: 'telemetry',
      msg: 'report stored',
    });
    expect(line!.time).to.be.a('number').and.at.least(before);
  });

  it('uses the level numbers of pino and drops what is under the threshold', () => {
    const table: [string, number[]][] = [
      ['debug', [20, 30, 40, 50]],
      ['info', [30, 40, 50]],
      ['warn', [40, 50]],
      ['error', [50]],
      ['silent', []],
    ];
    for (const [level, expected] of table) {
      const { logger, parsed } = recording(level);
      logger.debug({}, 'd');
      logger.info({}, 'i');
      logger.warn({}, 'w');
      logger.error({}, 'e');
      expect(
        parsed().map((l) => l.level),
        level,
      ).to.deep.equal(expected);
    }
  });

  it('refuses an unknown level', () => {
    expect(() => createLogger('verbose', () => undefined)).to.throw('unknown log level "verbose"');
  });

  it('writes an err field as type, code and message, never a stack', () => {
    const { logger, parsed } = recording();
    const err = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    logger.warn({ err, attempt: 2 }, 'link failed');
    const [line] = parsed();
    expect(line!.err).to.deep.equal({ type: 'Error', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' });
    expect(JSON.stringify(line)).not.to.contain('at ');
    expect(line!.attempt).to.equal(2);
  });

  it('never throws on a value JSON cannot write, and leaves out undefined fields and a missing message', () => {
    const { logger, parsed } = recording();
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    logger.info({ cycle, big: 10n, gone: undefined, text: 'a "quoted"\nline' });
    const [line] = parsed();
    expect(line).to.deep.include({ cycle: '[unserializable]', big: '10', text: 'a "quoted"\nline' });
    expect(line).not.to.have.property('gone');
    expect(line).not.to.have.property('msg');
  });
});
