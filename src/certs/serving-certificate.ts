/** A serving certificate chain and its key, PEM: what the server serves and what `serve --manage-certs` hands it. */
export interface ServingCertificate {
  cert: Buffer;
  key: Buffer;
}
