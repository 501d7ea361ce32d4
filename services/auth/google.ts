import * as oauth from "oauth4webapi";
import type { GoogleConfig } from "./config.ts";

export interface GoogleIdentity {
  sub: string;
  email: string;
  name: string;
}

/** Thrown when Google's answer cannot be used (bad state, failed exchange, unverified email). */
export class GoogleSignInError extends Error {}

/**
 * Google sign-in as an OpenID Connect relying party (authorization code flow with PKCE and
 * a nonce), through oauth4webapi. Plain-http issuers are allowed only on loopback (tests).
 */
export class GoogleSignIn {
  #server: Promise<oauth.AuthorizationServer> | null = null;
  readonly #client: oauth.Client;
  readonly #clientAuth: oauth.ClientAuth;
  readonly #options: { [oauth.allowInsecureRequests]?: boolean };

  constructor(private readonly config: GoogleConfig, readonly redirectUri: string) {
    this.#client = { client_id: config.clientId };
    this.#clientAuth = oauth.ClientSecretPost(config.clientSecret);
    const issuer = new URL(config.issuer);
    const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(issuer.hostname);
    this.#options = issuer.protocol === "http:" && loopback
      ? { [oauth.allowInsecureRequests]: true }
      : {};
  }

  #discover(): Promise<oauth.AuthorizationServer> {
    if (!this.#server) {
      const issuer = new URL(this.config.issuer);
      this.#server = oauth.discoveryRequest(issuer, { algorithm: "oidc", ...this.#options })
        .then((res) => oauth.processDiscoveryResponse(issuer, res));
      this.#server.catch(() => (this.#server = null));
    }
    return this.#server;
  }

  /** Where to send the browser, and the secrets to keep until it comes back. */
  async start(): Promise<{ url: URL; state: string; nonce: string; codeVerifier: string }> {
    const as = await this.#discover();
    if (!as.authorization_endpoint) throw new GoogleSignInError("No authorization endpoint");
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const url = new URL(as.authorization_endpoint);
    url.searchParams.set("client_id", this.config.clientId);
    url.searchParams.set("redirect_uri", this.redirectUri);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("scope", "openid email profile");
    url.searchParams.set("state", state);
    url.searchParams.set("nonce", nonce);
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(codeVerifier));
    url.searchParams.set("code_challenge_method", "S256");
    return { url, state, nonce, codeVerifier };
  }

  /** Exchanges the code Google sent back for a verified identity. */
  async finish(
    callbackUrl: URL,
    expected: { state: string; nonce: string; codeVerifier: string },
  ): Promise<GoogleIdentity> {
    const as = await this.#discover();
    let claims: oauth.IDToken;
    try {
      const params = oauth.validateAuthResponse(as, this.#client, callbackUrl, expected.state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        this.#client,
        this.#clientAuth,
        params,
        this.redirectUri,
        expected.codeVerifier,
        this.#options,
      );
      const result = await oauth.processAuthorizationCodeResponse(as, this.#client, response, {
        expectedNonce: expected.nonce,
        requireIdToken: true,
      });
      const idClaims = oauth.getValidatedIdTokenClaims(result);
      if (!idClaims) throw new GoogleSignInError("No id_token in the answer");
      claims = idClaims;
    } catch (err) {
      if (err instanceof GoogleSignInError) throw err;
      throw new GoogleSignInError(err instanceof Error ? err.message : String(err));
    }
    const email = typeof claims.email === "string" ? claims.email.trim().toLowerCase() : "";
    if (!email || claims.email_verified !== true) {
      throw new GoogleSignInError("The Google account has no verified email address");
    }
    const name = typeof claims.name === "string" && claims.name.trim()
      ? claims.name.trim().slice(0, 200)
      : email.split("@")[0];
    return { sub: claims.sub, email, name };
  }
}
