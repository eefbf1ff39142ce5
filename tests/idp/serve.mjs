// The OpenID provider of the auth tests: oidc-provider (an OpenID Certified implementation) on
// 127.0.0.1, a free port, issuing JWT access tokens for the resource a client names (RFC 8707
// resource indicators) through the client-credentials grant. Keys are made at start: RS256 and
// ES256; the client `es-client` gets ES256 tokens, the others RS256. The client `narrow` may ask
// for every scope but is granted only the read scopes (a grant narrower than the request, RFC 6749
// §3.3: what an official client's step-up meets when the IdP will not widen). Prints one JSON line,
// {"issuer": "http://127.0.0.1:PORT"}, then serves until killed.
//
//   node tests/idp/serve.mjs
import { createServer } from "node:http";
import { generateKeyPairSync } from "node:crypto";
import Provider from "oidc-provider";

const SCOPES = [
  "tasks:read", "tasks:write", "orders:read", "orders:write",
  "notes:read", "rooms:read", "rooms:book",
];
const READ = SCOPES.filter((s) => s.endsWith(":read"));

function privateJwk(type, options, kid, alg) {
  const jwk = generateKeyPairSync(type, options).privateKey.export({ format: "jwk" });
  return { ...jwk, kid, alg, use: "sig" };
}

const rsa = privateJwk("rsa", { modulusLength: 2048 }, "rs-1", "RS256");
const ec = privateJwk("ec", { namedCurve: "P-256" }, "es-1", "ES256");

// Each client may ask for the scopes named here (and no others).
const clients = [
  ["reader", "tasks:read orders:read notes:read rooms:read"],
  ["writer", SCOPES.join(" ")],
  ["es-client", SCOPES.join(" ")],
  ["narrow", SCOPES.join(" ")],
].map(([id, scope]) => ({
  client_id: id,
  client_secret: `${id}-secret`,
  grant_types: ["client_credentials"],
  redirect_uris: [],
  response_types: [],
  token_endpoint_auth_method: "client_secret_basic",
  scope,
}));

const server = createServer();
server.listen(0, "127.0.0.1", () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients,
    jwks: { keys: [rsa, ec] },
    scopes: SCOPES,
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource, client) => ({
          scope: (client.clientId === "narrow" ? READ : SCOPES).join(" "),
          audience: resource,
          accessTokenTTL: 600,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: client.clientId === "es-client" ? "ES256" : "RS256" } },
        }),
      },
    },
  });
  server.on("request", provider.callback());
  console.log(JSON.stringify({ issuer }));
});
