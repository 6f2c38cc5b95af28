import { expect } from 'chai';
import { applyProbe, type OnlineState } from '../../../controller/modules/equipment/monitor-rules.js';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const fresh: OnlineState = { online: null, online_changed_at: null, down_since: null, down_step: 0 };

describe('equipment monitoring transitions', () => {
  it('walks an outage: down, 15 min, 2 h, nothing at 3 h, back with the measured duration', () => {
    const seen: (string | null)[] = [];
    let state = applyProbe(fresh, 'up', at(0)).next;
    const steps: [number, 'up' | 'down'][] = [
      [1, 'down'],
      [2, 'down'],
      [16, 'down'],
      [17, 'down'],
      [121, 'down'],
      [180, 'down'],
      [181, 'up'],
      [182, 'up'],
    ];
    let back;
    for (const [minute, probe] of steps) {
      const out = applyProbe(state, probe, at(minute));
      seen.push(out.event ? (out.event.kind === 'still_down' ? out.event.label : out.event.kind) : null);
      if (out.event?.kind === 'back') back = out.event.down_seconds;
      state = out.next;
    }
    expect(seen).to.deep.equal(['down', null, '15m', null, '2h', null, 'back', null]);
    expect(back).to.equal(180 * 60);
  });

  const cases: {
    name: string;
    state: OnlineState;
    probe: 'up' | 'down' | 'unknown';
    minute: number;
    event: string | null;
  }[] = [
    { name: 'first reading up: online, no push', state: fresh, probe: 'up', minute: 0, event: null },
    { name: 'unknown changes nothing', state: fresh, probe: 'unknown', minute: 0, event: null },
    { name: 'first reading down pushes', state: fresh, probe: 'down', minute: 0, event: 'down' },
    {
      name: 'a late job sends the latest reminder only',
      state: {
        online: false,
        online_changed_at: at(0).toISOString(),
        down_since: at(0).toISOString(),
        down_step: 1,
      },
      probe: 'down',
      minute: 130,
      event: '2h',
    },
    {
      name: 'a re-read after the 2 h reminder sends nothing',
      state: {
        online: false,
        online_changed_at: at(0).toISOString(),
        down_since: at(0).toISOString(),
        down_step: 3,
      },
      probe: 'down',
      minute: 600,
      event: null,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const out = applyProbe(c.state, c.probe, at(c.minute));
      const label = out.event ? (out.event.kind === 'still_down' ? out.event.label : out.event.kind) : null;
      expect(label).to.equal(c.event);
    });
  }
});
