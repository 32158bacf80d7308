//! Lambda code: the zip of a function (`Code.ZipFile`, UpdateFunctionCode's `ZipFile`) unpacked
//! into a folder switchyard owns, before the operation runs, off the state's lock; the operation
//! then sees where it is (`SwitchyardUnpacked`: the folder, the zip's SHA-256 and size) instead
//! of the zip's bytes, and so does the journal of `--state-dir`.
//!
//! The folder is named by the zip's digest, under `<state dir>/lambda/code/` when the state is
//! kept (so a restart finds it), else under a folder of the process's in the system's temporary
//! folder; the same zip unpacks once. A zip is refused, and nothing is written outside the
//! folder, when it is not a zip, when an entry would land outside the folder (`..`, an absolute
//! path) or is a link, or when it unpacks to more than AWS's 262,144,000 bytes (a zip bomb
//! stops there, whatever sizes its entries declare).

use crate::error::AwsError;
use base64::Engine;
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// AWS's limit on a function's unzipped code (and its layers').
pub const MAX_UNZIPPED: u64 = 262_144_000;
/// AWS's limit on a zip uploaded with the request (`Code.ZipFile`).
pub const MAX_ZIPPED: usize = 52_428_800;

/// A zip unpacked: its folder, its SHA-256 (base64, as `CodeSha256`) and its size.
#[derive(Debug, Clone, PartialEq)]
pub struct Unpacked {
    pub dir: PathBuf,
    pub sha256: String,
    pub size: u64,
}

/// Why a zip is refused; each is InvalidParameterValueException with AWS's words where AWS has
/// them.
#[derive(Debug, PartialEq)]
pub enum CodeError {
    NotAZip,
    /// An entry that would land outside the folder, or a link: its name.
    Unsafe(String),
    TooLarge,
    /// Writing the folder failed: the cause.
    Io(String),
}

impl CodeError {
    pub fn to_aws(&self) -> AwsError {
        let invalid = crate::services::lambda::errors::invalid_parameter;
        match self {
            CodeError::NotAZip => invalid(
                "Could not unzip uploaded file. Please check your file, then try to upload again."
                    .into(),
            ),
            CodeError::Unsafe(name) => invalid(format!(
                "Could not unzip uploaded file: the entry {name:?} would be written outside the \
                 function's folder, or is a link; switchyard refuses such entries."
            )),
            CodeError::TooLarge => invalid(format!(
                "Unzipped size must be smaller than {MAX_UNZIPPED} bytes"
            )),
            CodeError::Io(cause) => AwsError::internal(format!("unpacking the code: {cause}")),
        }
    }
}

/// Unpacks `zip` into `<root>/<hex digest>` (once: a folder already there is the same zip's).
pub fn unpack(root: &Path, zip: &[u8]) -> Result<Unpacked, CodeError> {
    unpack_within(root, zip, MAX_UNZIPPED)
}

/// [`unpack`] with at most `limit` bytes unzipped.
fn unpack_within(root: &Path, zip: &[u8], limit: u64) -> Result<Unpacked, CodeError> {
    let digest = Sha256::digest(zip);
    let unpacked = |dir: PathBuf| Unpacked {
        dir,
        sha256: base64::engine::general_purpose::STANDARD.encode(digest),
        size: zip.len() as u64,
    };
    let dir = root.join(hex::encode(digest));
    if dir.is_dir() {
        return Ok(unpacked(dir));
    }
    let mut archive =
        zip::ZipArchive::new(std::io::Cursor::new(zip)).map_err(|_| CodeError::NotAZip)?;
    let io = |e: std::io::Error| CodeError::Io(e.to_string());
    std::fs::create_dir_all(root).map_err(io)?;
    // Unpacked beside the folder first, renamed into place when whole.
    let partial = root.join(format!(
        "{}.partial-{}",
        hex::encode(digest),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&partial);
    let written = extract(&mut archive, &partial, limit);
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(&partial);
        return Err(e);
    }
    match std::fs::rename(&partial, &dir) {
        Ok(()) => Ok(unpacked(dir)),
        // Another request unpacked the same zip meanwhile.
        Err(_) if dir.is_dir() => {
            let _ = std::fs::remove_dir_all(&partial);
            Ok(unpacked(dir))
        }
        Err(e) => Err(io(e)),
    }
}

fn extract(
    archive: &mut zip::ZipArchive<std::io::Cursor<&[u8]>>,
    into: &Path,
    limit: u64,
) -> Result<(), CodeError> {
    let io = |e: std::io::Error| CodeError::Io(e.to_string());
    std::fs::create_dir_all(into).map_err(io)?;
    let mut left = limit;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(|_| CodeError::NotAZip)?;
        let name = entry.name().to_string();
        let Some(relative) = entry.enclosed_name() else {
            return Err(CodeError::Unsafe(name));
        };
        if entry.is_symlink() {
            return Err(CodeError::Unsafe(name));
        }
        let path = into.join(relative);
        if entry.is_dir() {
            std::fs::create_dir_all(&path).map_err(io)?;
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let mut file = std::fs::File::create(&path).map_err(io)?;
        // Read no more than what is left of the limit, and one byte more to know it is passed.
        let mut limited = (&mut entry).take(left + 1);
        let copied = std::io::copy(&mut limited, &mut file).map_err(|e| {
            if e.kind() == std::io::ErrorKind::InvalidData {
                CodeError::NotAZip
            } else {
                io(e)
            }
        })?;
        if copied > left {
            return Err(CodeError::TooLarge);
        }
        left -= copied;
        file.flush().map_err(io)?;
        // The entry's permission bits as the zip recorded them (a `bootstrap` must stay
        // executable); read and write for the owner when it recorded none.
        let mode = entry.unix_mode().map_or(0o644, |m| m & 0o777) | 0o600;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).map_err(io)?;
    }
    Ok(())
}

/// Decodes a `ZipFile` member (base64) and unpacks it.
pub fn unpack_base64(root: &Path, zip: &str) -> Result<Unpacked, AwsError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(zip)
        .map_err(|_| CodeError::NotAZip.to_aws())?;
    if bytes.len() > MAX_ZIPPED {
        return Err(crate::services::lambda::errors::user(
            "RequestEntityTooLargeException",
            413,
            format!("Zipped size must be smaller than {MAX_ZIPPED} bytes"),
        ));
    }
    unpack(root, &bytes).map_err(|e| e.to_aws())
}

#[cfg(test)]
mod tests {
    use super::*;
    use zip::write::SimpleFileOptions;

    fn zip_of(entries: &[(&str, &[u8], u32)]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, body, mode) in entries {
            let options = SimpleFileOptions::default().unix_permissions(*mode);
            w.start_file(*name, options).unwrap();
            w.write_all(body).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    fn root(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("switchyard-code-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_zip_unpacks_once_with_its_modes_and_digest() {
        let root = root("once");
        let zip = zip_of(&[
            ("bootstrap", b"#!/bin/sh\n", 0o755),
            ("lib/app.py", b"def handler(e, c): return e\n", 0o644),
        ]);
        let first = unpack(&root, &zip).unwrap();
        assert_eq!(first.size, zip.len() as u64);
        assert_eq!(first.sha256.len(), 44, "{}", first.sha256);
        let app = std::fs::read_to_string(first.dir.join("lib/app.py")).unwrap();
        assert!(app.starts_with("def handler"));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(first.dir.join("bootstrap"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
        assert_eq!(unpack(&root, &zip).unwrap(), first);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn what_is_not_a_zip_or_would_land_outside_is_refused_and_writes_nothing() {
        let root = root("refused");
        assert_eq!(unpack(&root, b"not a zip"), Err(CodeError::NotAZip));
        for name in ["../escape.py", "/etc/escape.py", "a/../../escape.py"] {
            let zip = zip_of(&[("ok.py", b"x", 0o644), (name, b"x", 0o644)]);
            assert!(
                matches!(unpack(&root, &zip), Err(CodeError::Unsafe(_))),
                "{name}"
            );
        }
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        w.add_symlink("link", "/etc/passwd", SimpleFileOptions::default())
            .unwrap();
        let link = w.finish().unwrap().into_inner();
        assert_eq!(unpack(&root, &link), Err(CodeError::Unsafe("link".into())));
        assert!(!root.with_file_name("escape.py").exists());
        // Nothing is left in the root: no folder, no partial one.
        let left: Vec<_> = std::fs::read_dir(&root).map_or(Vec::new(), |d| d.collect());
        assert!(left.is_empty(), "{left:?}");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_zip_bomb_stops_at_the_unzipped_limit() {
        let root = root("bomb");
        // 4 MB of zeros in two entries deflate to a few kilobytes; the limit here is 3 MB (the
        // real one, 250 MB, would take long to deflate in a debug build), passed in the second.
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let chunk = vec![0u8; 2 << 20];
        for name in ["zeros", "more-zeros"] {
            w.start_file(name, SimpleFileOptions::default()).unwrap();
            w.write_all(&chunk).unwrap();
        }
        let bomb = w.finish().unwrap().into_inner();
        assert!(bomb.len() < 64 << 10, "{}", bomb.len());
        assert_eq!(
            unpack_within(&root, &bomb, 3 << 20),
            Err(CodeError::TooLarge)
        );
        assert!(unpack_within(&root, &bomb, 4 << 20).is_ok());
        let _ = std::fs::remove_dir_all(&root);
    }
}
