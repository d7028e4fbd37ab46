//! Where `cove profile -o PATH` writes its report: a file that holds the
//! previous report or the whole new one, never a part of one.
//!
//! A report is written after the run, in one piece. Writing it straight
//! into PATH meant truncating PATH before the run (it is opened then, so
//! that a bad path fails at once), so a Ctrl-C while the report was
//! rendered or written (which ends `cove` at once, see
//! [`crate::interrupt`]), a write that failed (a full disk, a file size
//! limit) or a render that failed left an empty or partial file where the
//! previous report had been. So the report is written to a temporary file
//! beside PATH — in the same directory, so that the rename is one atomic
//! step of one file system — and renamed onto PATH only once all of it is
//! written. An exit before that removes the temporary file and says on
//! stderr that the report was not written.
//!
//! A path that exists and is not a regular file (`/dev/null`, a named
//! pipe, a terminal) is written directly: there is no previous report in
//! it to keep, and a rename would put a file in the device's place. `-`
//! (and no `-o`) is stdout.
//!
//! What is checked before the run is what a direct open checked: the
//! temporary file is created then, so a missing or unwritable directory
//! fails at once; a directory named as PATH, or an existing report that
//! cannot be written, fails at once too rather than being replaced. A
//! report that replaces a file keeps that file's permissions, and a PATH
//! that is a symbolic link has the file it links to replaced, not the link.
//!
//! `cove fmt` rewrites a source file the same way ([`replace_whole`]), so
//! a formatting interrupted mid-write never leaves a source file cut short.
//!
//! It costs one extra file creation and a rename a report; a `cove` killed
//! outright (SIGKILL) leaves its temporary file, hidden (`.NAME.cove-PID.tmp`),
//! beside PATH, and PATH itself as it was.

#[cfg(feature = "profiler")]
use std::fs::File;
use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, TryLockError};
use std::time::{Duration, Instant};

/// The temporary file of the report being written, and the path it is
/// for, while there is one: what [`abandon_for_exit`] removes.
static PENDING: Mutex<Option<Pending>> = Mutex::new(None);

/// A temporary file not yet renamed into place.
#[derive(Debug, Clone)]
struct Pending {
    temp: PathBuf,
    /// The path as the command line gave it, for messages.
    shown: PathBuf,
    /// Whether it is a source file `cove fmt` rewrites rather than a
    /// report, for the message.
    source: bool,
}

/// Where a report goes.
#[cfg(feature = "profiler")]
#[derive(Debug)]
pub enum ReportFile {
    /// Standard output.
    Stdout,
    /// A path that is not a regular file, written as it is.
    Direct { file: File, shown: PathBuf },
    /// A regular file (or none yet), replaced once the report is complete.
    Replacing {
        file: File,
        temp: PathBuf,
        target: PathBuf,
        shown: PathBuf,
    },
}

#[cfg(feature = "profiler")]
impl ReportFile {
    /// Opens where `-o PATH` says the report goes (`None` or `-` for
    /// stdout), before the run. The error is the message to print.
    pub fn open(path: Option<&Path>) -> Result<ReportFile, String> {
        let Some(path) = path.filter(|p| *p != Path::new("-")) else {
            return Ok(ReportFile::Stdout);
        };
        let cannot =
            |why: &dyn std::fmt::Display| format!("cannot create {}: {why}", path.display());
        let existing = std::fs::metadata(path).ok();
        // `out/` names a directory whether or not one is there.
        let names_a_directory = path.as_os_str().to_string_lossy().ends_with('/');
        match &existing {
            Some(meta) if meta.is_dir() => return Err(cannot(&"it is a directory")),
            _ if names_a_directory => return Err(cannot(&"it names a directory")),
            Some(meta) if !meta.is_file() => {
                let file = OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| cannot(&e))?;
                return Ok(ReportFile::Direct {
                    file,
                    shown: path.to_path_buf(),
                });
            }
            Some(_) => {
                // The report will replace this file: it must be one the
                // user may write, as a direct open would have required.
                OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| cannot(&e))?;
            }
            None => {}
        }
        // A link is followed, so that the file it names is replaced.
        let target = match existing {
            Some(_) => std::fs::canonicalize(path).map_err(|e| cannot(&e))?,
            None => path.to_path_buf(),
        };
        let temp = temp_beside(&target).ok_or_else(|| cannot(&"it names no file"))?;
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(|e| cannot(&e))?;
        if let Some(meta) = &existing {
            // Best effort: a report that cannot take the old file's
            // permissions still replaces it with the usual ones.
            let _ = file.set_permissions(meta.permissions());
        }
        if let Ok(mut pending) = PENDING.lock() {
            *pending = Some(Pending {
                temp: temp.clone(),
                shown: path.to_path_buf(),
                source: false,
            });
        }
        Ok(ReportFile::Replacing {
            file,
            temp,
            target,
            shown: path.to_path_buf(),
        })
    }

    /// Whether the report goes to stdout.
    pub fn is_stdout(&self) -> bool {
        matches!(self, ReportFile::Stdout)
    }

    /// Writes all of `report` and, for a file it replaces, renames it into
    /// place. On an error nothing of the report is left at the path (a
    /// direct path aside: a pipe keeps what it was given), and the message
    /// says so.
    pub fn write(self, report: &[u8]) -> Result<(), String> {
        match self {
            // A reader that closed the pipe early had what it wanted.
            ReportFile::Stdout => crate::pipe::stdout(report).map_err(|e| format!("stdout: {e}")),
            ReportFile::Direct { mut file, shown } => file
                .write_all(report)
                .and_then(|()| file.flush())
                .map_err(|e| format!("{}: {e}", shown.display())),
            ReportFile::Replacing {
                mut file,
                temp,
                target,
                shown,
            } => {
                let written = file.write_all(report).and_then(|()| file.flush());
                drop(file);
                place(written, &temp, &target)
                    .map_err(|e| format!("{}: {e}; {}", shown.display(), not_written(&shown)))
            }
        }
    }

    /// Gives up on the report (its render failed): removes the temporary
    /// file and says on stderr that no report was written.
    pub fn abandon(self) {
        if let ReportFile::Replacing { temp, shown, .. } = self {
            if let Ok(mut pending) = PENDING.lock() {
                *pending = None;
            }
            let _ = std::fs::remove_file(&temp);
            crate::pipe::eprint(format_args!("cove: {}\n", not_written(&shown)));
        }
    }
}

/// The hidden temporary file a whole replacement of `target` is written to
/// first: beside it, so that the rename is one step of one file system.
fn temp_beside(target: &Path) -> Option<PathBuf> {
    let name = target.file_name()?.to_string_lossy().into_owned();
    Some(target.with_file_name(format!(".{name}.cove-{}.tmp", std::process::id())))
}

/// Replaces the file at `path` (the file a link names, for a link) with
/// `bytes`, whole: written to a temporary file beside it with its
/// permissions and renamed into place, so that a write that fails, or a
/// `cove` interrupted or killed meanwhile, leaves the file as it was. How
/// `cove fmt` rewrites a source file. The temporary file is what
/// [`abandon_for_exit`] removes while it is there, so a Ctrl-C leaves
/// nothing beside the file either.
pub fn replace_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let target = std::fs::canonicalize(path)?;
    let temp = temp_beside(&target).ok_or_else(|| std::io::Error::other("it names no file"))?;
    if let Ok(mut pending) = PENDING.lock() {
        *pending = Some(Pending {
            temp: temp.clone(),
            shown: path.to_path_buf(),
            source: true,
        });
    }
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut file| {
            if let Ok(meta) = std::fs::metadata(&target) {
                // Best effort, as for a report.
                let _ = file.set_permissions(meta.permissions());
            }
            file.write_all(bytes)?;
            file.flush()
        });
    place(written, &temp, &target)
}

/// Renames the temporary file `temp`, `written` whole, onto `target`, and
/// lets go of it as pending; on any failure removes it instead. The lock
/// on what is pending is held while the file is renamed, so that an exit
/// either waits for the rename or has removed the temporary file before
/// it (and then nothing is renamed).
fn place(written: std::io::Result<()>, temp: &Path, target: &Path) -> std::io::Result<()> {
    let mut pending = PENDING.lock().unwrap_or_else(|p| p.into_inner());
    let placed = match written {
        Ok(()) if pending.is_some() => std::fs::rename(temp, target),
        // `cove` is exiting and has removed the file already.
        Ok(()) => Err(std::io::Error::other("cove is exiting")),
        Err(e) => Err(e),
    };
    *pending = None;
    drop(pending);
    if placed.is_err() {
        let _ = std::fs::remove_file(temp);
    }
    placed
}

/// What an error or an exit says of a report it did not write.
fn not_written(shown: &Path) -> String {
    format!(
        "the report was not written; {} is left as it was",
        shown.display()
    )
}

/// Removes the temporary file of a report (or of a source `cove fmt`
/// rewrites) not yet in place and says so on stderr, for an exit that does
/// not wait for it (a Ctrl-C while it is rendered or written). Does nothing when the report is in place
/// or none was asked for; gives up after a moment if the report is being
/// renamed (it then is in place).
pub fn abandon_for_exit() {
    let deadline = Instant::now() + Duration::from_millis(200);
    loop {
        let locked = match PENDING.try_lock() {
            Ok(pending) => Some(pending),
            Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        };
        if let Some(mut pending) = locked {
            if let Some(p) = pending.take() {
                let _ = std::fs::remove_file(&p.temp);
                let said = if p.source {
                    format!(
                        "{} was not rewritten and is left as it was",
                        p.shown.display()
                    )
                } else {
                    not_written(&p.shown)
                };
                crate::pipe::eprint(format_args!("cove: {said}\n"));
            }
            return;
        }
        if Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
