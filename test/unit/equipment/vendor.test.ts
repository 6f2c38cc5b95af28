import { expect } from 'chai';
import {
  GENERIC_LOGO,
  ieeeRegistry,
  vendorLogo,
  vendorOf,
} from '../../../controller/modules/equipment/vendor.js';

describe('equipment vendor from the IEEE registry', () => {
  const cases: { mac: string | null; vendor: string | null; logo: string; reason: string | null }[] = [
    { mac: '24:A4:3C:11:22:33', vendor: 'Ubiquiti Inc', logo: 'ubiquiti', reason: null },
    { mac: '24-a4-3c-11-22-33', vendor: 'Ubiquiti Inc', logo: 'ubiquiti', reason: null },
    { mac: 'DC:2C:6E:01:02:03', vendor: 'Routerboard.com', logo: 'mikrotik', reason: null },
    { mac: 'B0:A7:B9:01:02:03', vendor: 'TP-Link Systems Inc', logo: 'tp-link', reason: null },
    {
      mac: '18:80:25:01:02:03',
      vendor: 'Hangzhou Hikvision Digital Technology Co.,Ltd.',
      logo: 'hikvision',
      reason: null,
    },
    // a vendor the app has no icon for: its name, the generic icon
    { mac: 'E0:D5:5E:01:02:03', vendor: 'GIGA-BYTE TECHNOLOGY CO.,LTD.', logo: GENERIC_LOGO, reason: null },
    // locally administered (bit 1 of the first octet): randomised, whatever the prefix
    { mac: 'DA:A1:19:01:02:03', vendor: null, logo: GENERIC_LOGO, reason: 'MAC_ALEATOIRE' },
    { mac: '26:A4:3C:11:22:33', vendor: null, logo: GENERIC_LOGO, reason: 'MAC_ALEATOIRE' },
    { mac: 'F4:00:00:01:02:03', vendor: null, logo: GENERIC_LOGO, reason: 'CONSTRUCTEUR_INCONNU' },
    { mac: null, vendor: null, logo: GENERIC_LOGO, reason: 'MAC_ABSENTE' },
    { mac: '', vendor: null, logo: GENERIC_LOGO, reason: 'MAC_ABSENTE' },
    { mac: 'not-a-mac', vendor: null, logo: GENERIC_LOGO, reason: 'MAC_ABSENTE' },
    { mac: '24:A4:3C:11:22', vendor: null, logo: GENERIC_LOGO, reason: 'MAC_ABSENTE' },
  ];
  for (const c of cases) {
    it(`${String(c.mac)} → ${c.vendor ?? c.reason}`, () => {
      expect(vendorOf(c.mac)).to.deep.equal({
        vendor: c.vendor,
        vendor_logo: c.logo,
        vendor_reason: c.reason,
      });
    });
  }

  it('reads the registry as shipped (tens of thousands of prefixes), not a hand table', () => {
    expect(ieeeRegistry('00000C')).to.equal('Cisco Systems, Inc');
    expect(ieeeRegistry('F40000')).to.equal(undefined);
  });

  it('never gives an approximate logo: a null vendor is always generic', () => {
    expect(vendorLogo(null)).to.equal(GENERIC_LOGO);
    expect(vendorLogo('Ubiquiti Networks Inc.')).to.equal('ubiquiti');
  });
});
