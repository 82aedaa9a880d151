# crdgate's image: the compiled CLI on Node 24, production dependencies only, and the API server engine built from
# Go, running as a non-root user.
#   docker build -t crdgate:0.1.0 .
# The Deployment rendered by `crdgate manifests` runs it with the serving certificate mounted at /etc/crdgate/certs.

# The same Node as the `node` devDependency that npm scripts run on (a test keeps the two equal).
ARG NODE_IMAGE=node:24.21.0-bookworm-slim
# The Go that builds the API server engine (src/api-server-engine/go needs Go >= 1.26).
ARG GO_IMAGE=golang:1.26.8-bookworm

# The API server engine: kube-apiserver's custom-resource pipeline, which `serve --crd-gate` runs to judge the live
# objects against a CRD revision (and `crdgate check` and `crdgate migrate` run), built twice with the flags that
# `npm run build:engine` uses (src/api-server-engine/build-engine.ts): natively, a program for the image's platform
# (this stage runs on it) that crdgate runs as a child process, without C so that it needs no glibc of Debian's slim
# Node; and as a stripped wasip1 reactor, the fallback crdgate runs inside Node where the native one cannot start.
FROM ${GO_IMAGE} AS api-server-engine
WORKDIR /app
COPY src/api-server-engine/go ./go
RUN cd go && GOWORK=off CGO_ENABLED=0 GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags "-s -w" -o ../engine.wasm crdgate.local/api-server-engine
RUN cd go && GOWORK=off CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o ../engine-native crdgate.local/api-server-engine

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The only install script belongs to the `node` devDependency, which fetches a pinned Node 24 for npm scripts on
# developer machines. The image already has Node 24: skip it, and drop the link it would have filled, so that
# `npm run build` runs the compiler on the image's own Node.
RUN npm ci --ignore-scripts --no-audit --no-fund && rm -f node_modules/.bin/node
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# V8 sizes its young generation for the node's memory, and grew it to ~215 MiB RSS under load. Capped at 16 MiB
# semi-spaces, as the rendered Deployment caps them, crdgate scavenges half as often as at 8. Only options that Node
# accepts in NODE_OPTIONS can go here: with --min-semi-space-size, Node refuses to start (exit 9).
ENV NODE_OPTIONS="--max-semi-space-size=16"
WORKDIR /app
# Its "type": "module" is what makes Node load dist/*.js as ES modules.
COPY package.json ./
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Where the engine's host (dist/api-server-engine/engine.js) loads them from: engine.wasm as `npm pack` ships it,
# and engine-native beside it (executable, as go build left it), which the host runs wherever it is there (unless
# CRDGATE_ENGINE=wasm). Only `serve --crd-gate`, `check` and `migrate` load the engine; the admission and conversion
# webhook never does.
COPY --from=api-server-engine /app/engine.wasm ./dist/api-server-engine/engine.wasm
COPY --from=api-server-engine /app/engine-native ./dist/api-server-engine/engine-native
# The image's `node` user, by number: Kubernetes can only check runAsNonRoot against a numeric user.
USER 1000:1000
EXPOSE 8443
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["serve", "--cert-dir", "/etc/crdgate/certs"]
