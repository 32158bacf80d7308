# switchyard: a small image serving the AWS APIs and the control API on 0.0.0.0:4566, in
# LocalStack's place where one is expected (docs/localstack.md, "Docker settings").
FROM rust:1-slim-bookworm AS build
# The SNS signer links the system's OpenSSL.
RUN apt-get update && apt-get install -y --no-install-recommends libssl-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src src
COPY crates crates
COPY models models
RUN cargo build --release --bin switchyard && strip target/release/switchyard

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends curl ca-certificates libssl3 \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/switchyard /usr/local/bin/switchyard
# testcontainers' LocalStackContainer (Java) starts LocalStack's entrypoint by this path. A named
# volume mounted on LocalStack's /var/lib/localstack starts as this directory, nobody's: with
# SWITCHYARD_STATE_DIR under it, the state survives the container (tools/test-image runs it so).
RUN ln -s switchyard /usr/local/bin/docker-entrypoint.sh \
    && mkdir -p /etc/localstack/init/ready.d /var/lib/localstack \
    && chown nobody:nogroup /var/lib/localstack
# LocalStack's listen address; --host, --port and SWITCHYARD_HOST/PORT still win over it. The
# scripts mounted in ready.d run before the `Ready.` line, as in LocalStack.
ENV GATEWAY_LISTEN=0.0.0.0:4566 SWITCHYARD_INIT=/etc/localstack/init/ready.d
EXPOSE 4566
HEALTHCHECK --interval=5s --timeout=2s --start-period=2s --retries=3 \
    CMD curl -fsS http://127.0.0.1:4566/_switchyard/health || exit 1
USER nobody
ENTRYPOINT ["switchyard"]
