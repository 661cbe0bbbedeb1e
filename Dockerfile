# Keeper from its npm package, installed exactly as the test suite installs it:
# server/test/package.integration.test.ts runs this file's `npm install` line (into a temporary
# prefix) and then starts the installed `keeper` against a real ensemble.
#
#   npm pack                                   # builds dist/ and writes keeper-<version>.tgz
#   docker build -t keeper .
#   docker run -p 8080:8080 -e KEEPER_ADMIN_TOKEN=... keeper --zk zk1:2181,zk2:2181,zk3:2181
#
# The package holds the bundled server and the built web app; only its production dependencies
# are installed, and it runs on Node.js alone (no tsx, no TypeScript).
FROM node:20-bookworm-slim
COPY keeper-*.tgz /tmp/keeper.tgz
RUN npm install --global --omit=dev --no-audit --no-fund /tmp/keeper.tgz && rm /tmp/keeper.tgz
USER node
# Listening beyond loopback needs an identity: Keeper refuses to start without KEEPER_ADMIN_TOKEN
# (and KEEPER_VIEWER_TOKEN), users in a config file, or single sign-on.
ENV HOST=0.0.0.0 PORT=8080 KEEPER_STATE_DIR=/home/node/keeper
EXPOSE 8080
ENTRYPOINT ["keeper"]
CMD ["--help"]
