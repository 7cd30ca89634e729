// A STARTTLS certificate and key for test daemons (fixtures/tls, made once with openssl, valid for
// a century): a daemon on a fresh store otherwise makes its own, which is most of its start-up. The
// making and keeping of that certificate has its own test (test/daemon/tls-identity.test.ts).
import { fromRoot } from './root.js';

export const TLS_FIXTURE = {
  SVC_TLS_CERT: fromRoot('fixtures/tls/cert.pem'),
  SVC_TLS_KEY: fromRoot('fixtures/tls/key.pem'),
};
