# The image the Helm chart runs: the `fleetgate` command on Node 20, production dependencies
# and the Kubernetes client, as an unprivileged user. Build it yourself (no registry publishes
# it): docker build -t fleetgate:0.1.0 .
# test/docker.test.ts runs this file's dependency step and its default command (as uid 65532 in a
# directory it cannot write), since no test here can run Docker itself.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build before the sources are copied; the build is its own step.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY rules rules
COPY certs/tinyca.ts certs/tinyca.ts
COPY bench bench
COPY scripts/compile-validators.mjs scripts/warm-up-corpus.mjs scripts/
COPY test/fixtures test/fixtures
RUN npm run build

# Production dependencies from the lockfile, plus @kubernetes/client-node: an optional peer of the
# package (library consumers do without it), which `serve --kubeconfig` and `--in-cluster` need.
FROM node:20-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm pkg set "dependencies.@kubernetes/client-node=$(npm pkg get 'devDependencies.@kubernetes/client-node' | tr -d '"')" \
 && npm pkg delete 'devDependencies.@kubernetes/client-node' \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json ./
COPY --from=dependencies /app/node_modules node_modules
COPY --from=build /app/dist dist
# /app stays root's. The chart runs 65532 with a read-only root filesystem and mounts the
# certificates (serve --cert-dir); run with no arguments, the image writes development
# certificates to /tmp instead, which this user can write.
USER 65532:65532
EXPOSE 8443 8000
ENTRYPOINT ["node", "dist/src/cli/bin.js"]
CMD ["serve", "--dev-cert-dir", "/tmp/fleetgate-certs"]
