//! LocalStack's own settings, read from the environment, so that switchyard (its Docker image
//! above all) takes a LocalStack container's configuration where it makes sense
//! (docs/localstack.md, "Docker settings"): GATEWAY_LISTEN, DEBUG and LS_LOG, SERVICES and
//! PERSISTENCE, each also under LocalStack's `LOCALSTACK_` prefix. switchyard's own options
//! (`--host`, `SWITCHYARD_HOST`, ..., `RUST_LOG`) win over them.
//! A leaf: it depends on nothing of the emulator.

/// What LocalStack's settings ask of switchyard.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct LocalStackEnv {
    /// GATEWAY_LISTEN's (first) address: its host, and its port where it gives one.
    pub listen_host: Option<String>,
    pub listen_port: Option<u16>,
    /// The log filter DEBUG or LS_LOG ask for (an `EnvFilter` directive).
    pub log_filter: Option<&'static str>,
    /// What to log once logging is set up: settings switchyard ignores or only partly follows.
    pub notes: Vec<Note>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Note {
    Info(String),
    Warn(String),
}

/// DEBUG=1: switchyard's own logs at debug, everything else at info.
const DEBUG_FILTER: &str = "info,switchyard=debug";
const TRACE_FILTER: &str = "info,switchyard=trace";

impl LocalStackEnv {
    /// Reads the settings through `var` (the process environment, or a test's map); `serving`
    /// names the services switchyard has. Only an unusable GATEWAY_LISTEN is an error.
    pub fn read(
        var: impl Fn(&str) -> Option<String>,
        serving: &[&str],
    ) -> Result<LocalStackEnv, String> {
        let get = |name: &str| {
            var(name)
                .or_else(|| var(&format!("LOCALSTACK_{name}")))
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let mut env = LocalStackEnv::default();
        if let Some(listen) = get("GATEWAY_LISTEN") {
            env.gateway_listen(&listen)?;
        }
        if get("DEBUG").is_some_and(|v| is_true(&v)) {
            env.log_filter = Some(DEBUG_FILTER);
        }
        if let Some(level) = get("LS_LOG") {
            env.ls_log(&level);
        }
        if let Some(services) = get("SERVICES") {
            env.services(&services, serving);
        }
        if get("PERSISTENCE").is_some_and(|v| is_true(&v)) {
            env.notes.push(Note::Warn(
                "PERSISTENCE is ignored: switchyard keeps its state in memory, and a restart \
                 starts empty"
                    .into(),
            ));
        }
        Ok(env)
    }

    /// `<address>:<port>(,<address>:<port>)*`; switchyard listens on the first.
    fn gateway_listen(&mut self, value: &str) -> Result<(), String> {
        let mut addresses = value.split(',').map(str::trim).filter(|a| !a.is_empty());
        let first = addresses.next().unwrap_or_default();
        let (host, port) = match first.rsplit_once(':') {
            // A bare IPv6 address (`::`) has colons but no port; a bracketed one may have one.
            Some((host, port)) if !host.contains(':') || host.ends_with(']') => {
                let port = port.parse::<u16>().map_err(|_| {
                    format!(
                        "GATEWAY_LISTEN={value}: {port:?} is not a port (expected <address>:<port>)"
                    )
                })?;
                (host, Some(port))
            }
            _ => (first, None),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        self.listen_host = (!host.is_empty()).then(|| host.to_string());
        self.listen_port = port;
        if addresses.next().is_some() {
            self.notes.push(Note::Warn(format!(
                "GATEWAY_LISTEN={value}: switchyard listens on one address, the first ({first})"
            )));
        }
        Ok(())
    }

    /// LS_LOG overrides DEBUG, as in LocalStack.
    fn ls_log(&mut self, level: &str) {
        self.log_filter = match level.to_ascii_lowercase().as_str() {
            "trace" | "trace-internal" => Some(TRACE_FILTER),
            "debug" => Some(DEBUG_FILTER),
            "info" => Some("info"),
            "warn" | "warning" => Some("warn"),
            "error" => Some("error"),
            _ => {
                self.notes.push(Note::Warn(format!(
                    "LS_LOG={level} is not a level (trace, debug, info, warn, error); ignored"
                )));
                return;
            }
        };
    }

    /// switchyard serves all of its services whatever SERVICES lists; it says which of the
    /// listed ones it does not have.
    fn services(&mut self, value: &str, serving: &[&str]) {
        let listed: Vec<String> = value
            .split(',')
            .map(|s| {
                s.split(':')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_ascii_lowercase()
            })
            .filter(|s| !s.is_empty())
            .collect();
        let missing: Vec<&str> = listed
            .iter()
            .map(String::as_str)
            .filter(|s| !serving.contains(s))
            .collect();
        let serves = serving.join(", ");
        self.notes.push(Note::Info(format!(
            "SERVICES={value}: switchyard serves {serves} whatever SERVICES lists"
        )));
        if !missing.is_empty() {
            self.notes.push(Note::Warn(format!(
                "SERVICES names {}, which switchyard does not emulate: their requests get an \
                 error",
                missing.join(", ")
            )));
        }
    }
}

/// LocalStack's true strings.
fn is_true(value: &str) -> bool {
    matches!(value.to_ascii_lowercase().as_str(), "1" | "true" | "yes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const SERVING: [&str; 3] = ["sqs", "sns", "events"];

    fn read(vars: &[(&str, &str)]) -> Result<LocalStackEnv, String> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        LocalStackEnv::read(|name| vars.get(name).cloned(), &SERVING)
    }

    #[test]
    fn nothing_set_asks_nothing() {
        assert_eq!(read(&[]).unwrap(), LocalStackEnv::default());
    }

    #[test]
    fn gateway_listen_gives_the_first_address() {
        let env = read(&[("GATEWAY_LISTEN", "0.0.0.0:4567")]).unwrap();
        assert_eq!(
            (env.listen_host.as_deref(), env.listen_port),
            (Some("0.0.0.0"), Some(4567))
        );
        assert!(env.notes.is_empty());
        let env = read(&[("GATEWAY_LISTEN", ":4600,0.0.0.0:443")]).unwrap();
        assert_eq!(
            (env.listen_host.as_deref(), env.listen_port),
            (None, Some(4600))
        );
        assert!(matches!(&env.notes[..], [Note::Warn(n)] if n.contains("the first (:4600)")));
        let env = read(&[("LOCALSTACK_GATEWAY_LISTEN", "[::]:4566")]).unwrap();
        assert_eq!(
            (env.listen_host.as_deref(), env.listen_port),
            (Some("::"), Some(4566))
        );
        let env = read(&[("GATEWAY_LISTEN", "127.0.0.1")]).unwrap();
        assert_eq!(
            (env.listen_host.as_deref(), env.listen_port),
            (Some("127.0.0.1"), None)
        );
        let err = read(&[("GATEWAY_LISTEN", "0.0.0.0:http")]).unwrap_err();
        assert!(err.contains("\"http\" is not a port"), "{err}");
    }

    #[test]
    fn debug_and_ls_log_set_the_log_level() {
        assert_eq!(
            read(&[("DEBUG", "1")]).unwrap().log_filter,
            Some("info,switchyard=debug")
        );
        assert_eq!(read(&[("DEBUG", "0")]).unwrap().log_filter, None);
        let env = read(&[("DEBUG", "1"), ("LS_LOG", "warn")]).unwrap();
        assert_eq!(env.log_filter, Some("warn"));
        let env = read(&[("LS_LOG", "loud")]).unwrap();
        assert_eq!(env.log_filter, None);
        assert!(matches!(&env.notes[..], [Note::Warn(n)] if n.contains("LS_LOG=loud")));
    }

    #[test]
    fn services_and_persistence_are_noted() {
        let env = read(&[("SERVICES", "sqs, s3:4572,dynamodb"), ("PERSISTENCE", "1")]).unwrap();
        let notes: Vec<String> = env
            .notes
            .into_iter()
            .map(|n| match n {
                Note::Info(t) | Note::Warn(t) => t,
            })
            .collect();
        assert!(
            notes[0].contains("serves sqs, sns, events whatever SERVICES lists"),
            "{notes:?}"
        );
        assert!(
            notes[1].starts_with("SERVICES names s3, dynamodb,"),
            "{notes:?}"
        );
        assert!(notes[2].starts_with("PERSISTENCE is ignored"), "{notes:?}");
    }
}
