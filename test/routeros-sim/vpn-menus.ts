// Menus of the router's remote-access tunnels that the generic menu table models (the tunnel
// behaviour itself is in vpn-tunnels.ts).
import { BACK_TO_HOME_MENUS } from './back-to-home.js';
import type { MenuDef } from './menu-table.js';

export const SSTP_CLIENT_MENU: MenuDef = {
  path: '/interface/sstp-client',
  props: [
    'name',
    'connect-to',
    'port',
    'user',
    'password',
    'profile',
    'add-default-route',
    'verify-server-certificate',
    'authentication',
    'tls-version',
    'comment',
    'disabled',
  ],
  booleans: ['running', 'disabled', 'add-default-route', 'verify-server-certificate'],
  required: ['name', 'connect-to'],
  unique: { prop: 'name', message: 'failure: already have interface with such name' },
  hidden: ['password'],
  readOnlyProps: ['running'],
  defaults: () => ({
    port: '443',
    profile: 'default-encryption',
    'add-default-route': 'false',
    'verify-server-certificate': 'false',
    running: 'false',
    disabled: 'false',
  }),
  fieldOrder: ['name', 'connect-to', 'port', 'user', 'profile', 'running', 'disabled', 'comment'],
};

export const VPN_MENUS: readonly MenuDef[] = [SSTP_CLIENT_MENU, ...BACK_TO_HOME_MENUS];
