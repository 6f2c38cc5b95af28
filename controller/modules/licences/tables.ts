export interface ProductsTable {
  code: string;
  name: string;
}

export interface PlansTable {
  code: string;
  product_code: string;
  name: string;
  period: 'annual' | 'monthly';
  duration_days: number;
  /** Integer XOF; null until an administrator sets a price that is not published (never invented). */
  price_xof: number | null;
  max_devices: number | null;
  active: number;
}

export interface LicencesTable {
  id: string;
  client_id: string;
  plan_code: string;
  product_code: string;
  status: 'ACTIVE' | 'REVOKED';
  starts_at: string;
  expires_at: string;
  granted_by: string | null;
  created_at: string;
}

export interface LicencesTables {
  products: ProductsTable;
  plans: PlansTable;
  licences: LicencesTable;
}
