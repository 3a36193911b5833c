# The image the Helm chart runs: the `fleetgate` command on Node 20, production
# dependencies only, as an unprivileged user. The steps are those of a clean clone:
# npm ci, npm run build, npm prune --omit=dev.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY rules rules
COPY certs/tinyca.ts certs/tinyca.ts
COPY bench bench
COPY scripts/compile-validators.mjs scripts/compile-validators.mjs
COPY test/fixtures test/fixtures
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
# The chart's securityContext runs as 65532 with a read-only root filesystem; certificates
# are mounted (--cert-dir), so nothing is written at run time.
USER 65532:65532
EXPOSE 8443 8000
ENTRYPOINT ["node", "dist/src/cli/bin.js"]
CMD ["serve"]
