# svc in a container (README "Containers"): built in one stage, run as the unprivileged `node` user
# in another with only what runs. The file store lives on the volume /var/lib/svc; for Postgres set
# SVC_STORE (compose.yaml). Listens on every address of the container (SVC_HOST=0.0.0.0): give it
# the public base URL and service domain (SVC_BASE_URL, SVC_SERVICE_DOMAIN) or it says so at start.
FROM node:20-bookworm-slim AS build
# A C compiler for better-sqlite3 (the embedded store's SQLite), built where no prebuilt binary is fetched.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY patches ./patches
COPY src ./src
COPY commands ./commands
COPY daemon ./daemon
COPY bin ./bin
COPY man ./man
# npm ci builds dist/ (the prepare script); then the build tools go.
RUN npm ci && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    SVC_STORE=file:/var/lib/svc \
    SVC_HOST=0.0.0.0 \
    SVC_API_PORT=8080 \
    SVC_RELAY_PORT=2525 \
    SVC_MX_PORT=2526
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY --from=build /src/bin ./bin
COPY --from=build /src/man ./man
RUN mkdir -p /var/lib/svc && chown node:node /var/lib/svc && chmod 0700 /var/lib/svc \
 && ln -s /app/bin/svc /usr/local/bin/svc
USER node
VOLUME /var/lib/svc
EXPOSE 8080 2525 2526
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.SVC_API_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["svc"]
CMD ["serve"]
