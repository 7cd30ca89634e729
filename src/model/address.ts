// src/model/: the records svc keeps and the vocabulary they are written in (plans, scopes, record
// purposes, event names, topics, refusals): the bottom layer, which imports only the error
// registry.
//
// A registered sender address on one of the workspace's domains (spec.md "Addresses").
export interface Address {
  id: string;
  workspace_id: string;
  domain_id: string;
  /** local@domain, lowercase. */
  address: string;
  status: 'active' | 'disabled';
  created_at: string;
}
