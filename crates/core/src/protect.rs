//! What no tool may touch, whatever path names it: filekit's own state, the files whose content
//! makes a program run later, and (where a root holds the home folder) credentials.
//!
//! `.git/` is protected by name at any depth (see [`crate::workspace`]); this module decides the
//! rest, for the one write policy ([`Workspace::check_writable`](crate::Workspace::check_writable))
//! and the one read check (`Workspace::check_readable`):
//!
//! - **filekit's state** (the state base: every workspace's history, versions, leases,
//!   journals, and the HTTP bearer tokens; and a history file named elsewhere) is out of every
//!   root's view: not read, listed, searched, written, moved or removed, nor any folder that
//!   holds it. It is found by identity: at start, the base's ancestors are compared by device
//!   and inode with each root, so a root spelled another way (a link, a bind mount of the home
//!   folder) still finds it. Nothing unlocks this.
//! - **Files that make a program run later** are not written, created, moved or copied onto,
//!   moved away or removed, in any letter case: in any folder of a root, the MCP and agent
//!   clients' project configurations (`.mcp.json`, `.vscode/mcp.json`, `.cursor/mcp.json`,
//!   `.claude/settings*.json`), `.vscode/tasks.json` and direnv's `.envrc`; under the home
//!   folder (when a root holds it, or is inside it), the clients' user configurations, shell
//!   start-up files, git's user configuration, `~/.ssh/` and the rest of [`HOME_ENTRIES`].
//!   A link is no way round: a path that passes through a protected name on its way is
//!   protected, and a home entry that is a link protects the file it leads to. A folder
//!   holding one is not moved or removed as a whole, and a link is not made at (or moved to)
//!   a folder name the protected files live in (`.claude`, `.vscode`, `.cursor`, a home
//!   entry's folder). Unlocked only by the person who starts filekit (a start option), never
//!   by a tool call.
//! - **Credentials** under the home folder (`~/.ssh/` but its public keys, `~/.aws/credentials`,
//!   `~/.netrc`, ...) are not read either; unlocked by a start option of their own.

use std::path::{Component, Path, PathBuf};

/// Why a path is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// filekit's own state: out of view, for every tool, always.
    State,
    /// A file whose content makes a program run later: not written by tools.
    RunsLater(&'static str),
    /// A credential: neither read nor written by tools.
    Secret(&'static str),
}

/// One entry of the home folder that is protected.
pub struct HomeEntry {
    /// The path below the home folder.
    pub path: &'static str,
    /// What it is, for the refusal.
    pub what: &'static str,
    /// A folder: everything in it is protected too.
    pub folder: bool,
    /// Its content is a credential: not read either.
    pub secret: bool,
}

const fn entry(path: &'static str, what: &'static str) -> HomeEntry {
    HomeEntry {
        path,
        what,
        folder: false,
        secret: false,
    }
}

const fn folder(path: &'static str, what: &'static str) -> HomeEntry {
    HomeEntry {
        path,
        what,
        folder: true,
        secret: false,
    }
}

const fn secret(path: &'static str, what: &'static str) -> HomeEntry {
    HomeEntry {
        path,
        what,
        folder: false,
        secret: true,
    }
}

const fn secret_folder(path: &'static str, what: &'static str) -> HomeEntry {
    HomeEntry {
        path,
        what,
        folder: true,
        secret: true,
    }
}

/// The home folder's protected entries (SECURITY.md lists them with the names protected in
/// every folder).
pub const HOME_ENTRIES: &[HomeEntry] = &[
    // MCP and agent clients: a server entry or a hook there is a command they run.
    entry(
        ".claude.json",
        "Claude Code's user configuration (MCP servers)",
    ),
    entry(
        ".claude/settings.json",
        "Claude Code's user settings (hooks)",
    ),
    entry(".cursor/mcp.json", "Cursor's MCP configuration"),
    entry(".codex/config.toml", "Codex's configuration (MCP servers)"),
    entry(
        ".config/Claude/claude_desktop_config.json",
        "Claude Desktop's configuration (MCP servers)",
    ),
    entry(
        "Library/Application Support/Claude/claude_desktop_config.json",
        "Claude Desktop's configuration (MCP servers)",
    ),
    entry(
        ".gemini/settings.json",
        "Gemini CLI's settings (MCP servers)",
    ),
    entry(
        ".codeium/windsurf/mcp_config.json",
        "Windsurf's MCP configuration",
    ),
    // Shells read these at start-up.
    entry(".profile", "a shell start-up file"),
    entry(".bashrc", "a shell start-up file"),
    entry(".bash_profile", "a shell start-up file"),
    entry(".bash_login", "a shell start-up file"),
    entry(".bash_logout", "a shell start-up file"),
    entry(".zshrc", "a shell start-up file"),
    entry(".zshenv", "a shell start-up file"),
    entry(".zprofile", "a shell start-up file"),
    entry(".zlogin", "a shell start-up file"),
    entry(".zlogout", "a shell start-up file"),
    entry(".cshrc", "a shell start-up file"),
    entry(".tcshrc", "a shell start-up file"),
    entry(".kshrc", "a shell start-up file"),
    entry(".xprofile", "a session start-up file"),
    entry(".xinitrc", "a session start-up file"),
    folder(".config/fish", "fish's start-up files"),
    // Programs started for the user later.
    entry(
        ".gitconfig",
        "git's user configuration (core.fsmonitor, aliases and hooks run commands)",
    ),
    entry(
        ".config/git/config",
        "git's user configuration (core.fsmonitor, aliases and hooks run commands)",
    ),
    folder(".config/autostart", "programs started at login"),
    folder(".config/systemd/user", "services started for the user"),
    folder(".local/bin", "programs found first on PATH"),
    // Logins and credentials: read by nobody but their owner's tools.
    HomeEntry {
        path: ".ssh",
        what: "SSH's keys and configuration",
        folder: true,
        secret: true,
    },
    secret_folder(".gnupg", "GnuPG's keys"),
    secret_folder(".aws", "AWS credentials and configuration"),
    secret_folder(".config/gcloud", "Google Cloud credentials"),
    secret_folder(".azure", "Azure credentials"),
    secret_folder(".kube", "Kubernetes credentials"),
    secret_folder(".docker", "Docker's credentials and helpers"),
    secret(".netrc", "login credentials (.netrc)"),
    secret(".git-credentials", "git's stored credentials"),
    secret(".npmrc", "npm's tokens and configuration"),
    secret(".pypirc", "PyPI's tokens"),
    secret(".cargo/credentials", "crates.io's token"),
    secret(".cargo/credentials.toml", "crates.io's token"),
    secret(".config/gh/hosts.yml", "GitHub CLI's tokens"),
    secret(".claude/.credentials.json", "Claude Code's credentials"),
    secret(".codex/auth.json", "Codex's credentials"),
];

/// Folders where the protected names of [`by_name`] live: a link made (or moved) at one of
/// these names would lead those names elsewhere.
const PROTECTED_FOLDER_NAMES: &[&str] = &[".claude", ".vscode", ".cursor"];

/// A protected name in any folder of a root (compared in any letter case).
pub fn by_name(rel: &Path) -> Option<&'static str> {
    let mut names = rel.components().rev().filter_map(|c| match c {
        Component::Normal(n) => Some(n.to_string_lossy().to_ascii_lowercase()),
        _ => None,
    });
    let last = names.next()?;
    let parent = names.next();
    match (parent.as_deref(), last.as_str()) {
        (_, ".mcp.json") => Some("an MCP client's project configuration (.mcp.json)"),
        (_, ".envrc") => Some("direnv's start-up file (.envrc)"),
        (Some(".vscode"), "mcp.json") => Some("VS Code's MCP configuration"),
        (Some(".vscode"), "tasks.json") => Some("VS Code's tasks (run at folder open)"),
        (Some(".cursor"), "mcp.json") => Some("Cursor's MCP configuration"),
        (Some(".claude"), n) if n.starts_with("settings") && n.ends_with(".json") => {
            Some("Claude Code's settings (hooks and permissions)")
        }
        _ => None,
    }
}

/// True when a link at `rel` would lead protected names elsewhere.
pub(crate) fn is_protected_folder_name(rel: &Path) -> bool {
    rel.file_name().is_some_and(|n| {
        PROTECTED_FOLDER_NAMES
            .iter()
            .any(|p| n.eq_ignore_ascii_case(p))
    })
}

/// A protected place inside one root, relative to it.
#[derive(Debug, Clone)]
pub(crate) struct Guard {
    /// Its path's components, lower case.
    parts: Vec<String>,
    /// Everything below it is protected too.
    folder: bool,
    pub(crate) reason: Reason,
    /// Readable, with public keys (`*.pub`) readable in a secret folder.
    readable: bool,
    /// The place as shown (below the root).
    pub(crate) shown: PathBuf,
}

fn lower_parts(rel: &Path) -> Vec<String> {
    rel.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_string_lossy().to_lowercase()),
            _ => None,
        })
        .collect()
}

impl Guard {
    /// Whether `parts` (a path's lower-case components) is this place or lies below it.
    fn covers(&self, parts: &[String]) -> bool {
        if self.folder {
            parts.starts_with(&self.parts)
        } else {
            parts == self.parts.as_slice()
        }
    }

    /// Whether `parts` is an ancestor of this place (or the place itself).
    fn lies_within(&self, parts: &[String]) -> bool {
        self.parts.starts_with(parts)
    }
}

/// The protected places of each root, found once when the workspace is opened (and when its
/// state is attached).
#[derive(Debug, Clone, Default)]
pub(crate) struct Guards {
    per_root: Vec<Vec<Guard>>,
}

/// A path of a root, as the checks see it.
pub(crate) struct Probe {
    parts: Vec<String>,
}

impl Probe {
    pub(crate) fn new(rel: &Path) -> Probe {
        Probe {
            parts: lower_parts(rel),
        }
    }
}

impl Guards {
    pub(crate) fn new(roots: usize) -> Guards {
        Guards {
            per_root: vec![Vec::new(); roots],
        }
    }

    /// True when root `i` has no protected place: most projects' roots.
    pub(crate) fn none_in(&self, i: usize) -> bool {
        self.per_root.get(i).is_none_or(Vec::is_empty)
    }

    /// The first guard of root `i` that covers `probe` and `wanted` selects.
    pub(crate) fn covering(
        &self,
        i: usize,
        probe: &Probe,
        wanted: impl Fn(&Guard) -> bool,
    ) -> Option<&Guard> {
        self.per_root
            .get(i)?
            .iter()
            .find(|g| wanted(g) && g.covers(&probe.parts))
    }

    /// The first guard of root `i` at or below `probe` (a folder that holds it) that
    /// `wanted` selects.
    pub(crate) fn within(
        &self,
        i: usize,
        probe: &Probe,
        wanted: impl Fn(&Guard) -> bool,
    ) -> Option<&Guard> {
        let inside = || {
            self.per_root
                .get(i)
                .into_iter()
                .flatten()
                .filter(|g| wanted(g) && g.lies_within(&probe.parts))
        };
        // filekit's state first: it is the one nothing unlocks.
        inside()
            .find(|g| g.reason == Reason::State)
            .or_else(|| inside().next())
    }

    /// The guard of root `i` that keeps `probe` from being read: filekit's state, or a
    /// credential unless `secrets_allowed`.
    pub(crate) fn unreadable(
        &self,
        i: usize,
        probe: &Probe,
        secrets_allowed: bool,
    ) -> Option<&Guard> {
        let guard = self.covering(i, probe, |g| {
            !g.readable && (g.reason == Reason::State || !secrets_allowed)
        })?;
        // A public key is for giving away.
        let public = matches!(guard.reason, Reason::Secret(_))
            && probe.parts.len() > guard.parts.len()
            && probe.parts.last().is_some_and(|n| n.ends_with(".pub"));
        (!public).then_some(guard)
    }

    fn add(&mut self, root: usize, rel: &Path, folder: bool, reason: Reason) {
        let readable = !matches!(reason, Reason::State | Reason::Secret(_));
        if let Some(list) = self.per_root.get_mut(root) {
            list.push(Guard {
                parts: lower_parts(rel),
                folder,
                reason,
                readable,
                shown: rel.to_path_buf(),
            });
        }
    }

    /// Protects the home folder's entries in every root that holds them (or holds part of
    /// them: a root inside `~/.config` still protects `fish/`), and the files the entries
    /// that are links lead to.
    pub(crate) fn add_home(&mut self, roots: &[RootId], home: &Path) {
        let mut ids = Identities::default();
        for e in HOME_ENTRIES {
            let reason = if e.secret {
                Reason::Secret(e.what)
            } else {
                Reason::RunsLater(e.what)
            };
            let at = home.join(e.path);
            let link = ids.is_link(&at);
            self.add_place(roots, &at, e.folder, reason, &mut ids);
            // A dotfiles manager keeps `~/.bashrc` as a link to the file it writes; that file
            // is the one a shell reads.
            if link && let Ok(real) = std::fs::canonicalize(&at) {
                self.add_place(roots, &real, e.folder, reason, &mut ids);
            }
        }
    }

    /// Takes filekit's state at each of `places` (a folder, or the files of a history named
    /// elsewhere) out of every root that holds it.
    pub(crate) fn add_state(&mut self, roots: &[RootId], places: &[PathBuf], folder: bool) {
        let mut ids = Identities::default();
        for place in places {
            let Ok(place) = std::path::absolute(place) else {
                continue;
            };
            let real = ids.real_path(&place);
            self.add_place(roots, &real, folder, Reason::State, &mut ids);
        }
    }

    /// Guards `at` (absolute) in each root it lies in, found by identity: an ancestor of `at`
    /// with the root's device and inode; or, for a root inside `at`'s folder, the part of it
    /// inside the root.
    fn add_place(
        &mut self,
        roots: &[RootId],
        at: &Path,
        folder: bool,
        reason: Reason,
        ids: &mut Identities,
    ) {
        for (i, root) in roots.iter().enumerate() {
            if let Some(rel) = root.holds(at, ids) {
                self.add(i, &rel, folder, reason);
            } else if folder && root.path.starts_with(at) {
                // The root is inside a protected folder: all of it is protected.
                self.add(i, Path::new(""), true, reason);
            } else if let Ok(inside) = at.strip_prefix(&root.path) {
                self.add(i, inside, folder, reason);
            }
        }
    }

    /// The places filekit's state takes in each root (relative to the root), for a front
    /// end to report.
    pub(crate) fn state_places(&self) -> Vec<(usize, PathBuf)> {
        self.per_root
            .iter()
            .enumerate()
            .flat_map(|(i, gs)| {
                gs.iter()
                    .filter(|g| g.reason == Reason::State)
                    .map(move |g| (i, g.shown.clone()))
            })
            .collect()
    }
}

/// A root as identity: its real path and its device and inode.
#[derive(Debug, Clone)]
pub(crate) struct RootId {
    pub(crate) path: PathBuf,
    dev: u64,
    ino: u64,
}

impl RootId {
    pub(crate) fn of(path: &Path) -> Option<RootId> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok()?;
        Some(RootId {
            path: path.to_path_buf(),
            dev: m.dev(),
            ino: m.ino(),
        })
    }

    /// `at` relative to this root when one of `at`'s ancestors (or `at` itself) is this
    /// root's directory, by device and inode. The parts of `at` that do not exist yet are
    /// taken as written.
    fn holds(&self, at: &Path, ids: &mut Identities) -> Option<PathBuf> {
        let mut cur = Some(at);
        while let Some(dir) = cur {
            if ids.of(dir) == Some((self.dev, self.ino)) {
                return at.strip_prefix(dir).ok().map(Path::to_path_buf);
            }
            cur = dir.parent();
        }
        None
    }
}

/// The device and inode of paths (following links), each asked of the system once while the
/// protected places are found: the home folder's 46 entries share their ancestors, and each
/// is compared with every root. A path whose folder is not found is not asked for: it
/// cannot be found either (the system resolves the folder on the way to it).
#[derive(Default)]
struct Identities {
    known: std::collections::HashMap<PathBuf, Option<(u64, u64)>>,
    real_dirs: std::collections::HashMap<PathBuf, Option<PathBuf>>,
}

impl Identities {
    /// The device and inode of `path` (absolute), `None` when it cannot be found.
    fn of(&mut self, path: &Path) -> Option<(u64, u64)> {
        use std::os::unix::fs::MetadataExt;
        if let Some(known) = self.known.get(path) {
            return *known;
        }
        let folder_missing = path
            .parent()
            .is_some_and(|p| !p.as_os_str().is_empty() && self.of(p).is_none());
        let id = if folder_missing {
            None
        } else {
            std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
        };
        self.known.insert(path.to_path_buf(), id);
        id
    }

    /// Whether `path` (absolute) is a symbolic link. What is not a link is known by the same
    /// look (its device and inode are the ones it shows).
    fn is_link(&mut self, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        if self.known.contains_key(path) {
            return std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        }
        if path.parent().is_some_and(|p| self.of(p).is_none()) {
            self.known.insert(path.to_path_buf(), None);
            return false;
        }
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => true,
            found => {
                let id = found.ok().map(|m| (m.dev(), m.ino()));
                self.known.insert(path.to_path_buf(), id);
                false
            }
        }
    }

    /// The real path of `place` (absolute): where it leads, or, for a file not made yet, its
    /// folder's real path and its name; as written when neither is found. Places in one
    /// folder (a history's database and SQLite's files beside it) resolve the folder once.
    fn real_path(&mut self, place: &Path) -> PathBuf {
        let (Some(folder), Some(name)) = (place.parent(), place.file_name()) else {
            return std::fs::canonicalize(place).unwrap_or_else(|_| place.to_path_buf());
        };
        if self.is_link(place)
            && let Ok(real) = std::fs::canonicalize(place)
        {
            return real;
        }
        let real_dir = match self.real_dirs.get(folder) {
            Some(known) => known.clone(),
            None => {
                let real = std::fs::canonicalize(folder).ok();
                self.real_dirs.insert(folder.to_path_buf(), real.clone());
                real
            }
        };
        real_dir.map_or_else(|| place.to_path_buf(), |d| d.join(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_protected_in_any_folder_and_case() {
        assert!(by_name(Path::new(".mcp.json")).is_some());
        assert!(by_name(Path::new("a/b/.MCP.json")).is_some());
        assert!(by_name(Path::new("x/.envrc")).is_some());
        assert!(by_name(Path::new(".VSCode/Tasks.json")).is_some());
        assert!(by_name(Path::new(".vscode/mcp.json")).is_some());
        assert!(by_name(Path::new(".cursor/mcp.json")).is_some());
        assert!(by_name(Path::new(".claude/settings.local.json")).is_some());
        assert!(by_name(Path::new("p/.Claude/SETTINGS.json")).is_some());
        assert!(by_name(Path::new(".vscode/settings.json")).is_none());
        assert!(by_name(Path::new("mcp.json")).is_none());
        assert!(by_name(Path::new(".claude/commands/x.md")).is_none());
        assert!(by_name(Path::new(".envrc.example")).is_none());
    }

    #[test]
    fn the_state_is_found_by_identity_whatever_the_roots_spelling() {
        let t = tempfile::tempdir().unwrap();
        let real = t.path().canonicalize().unwrap().join("home");
        std::fs::create_dir_all(real.join(".local/state/filekit")).unwrap();
        let alias = t.path().join("alias");
        std::os::unix::fs::symlink(&real, &alias).unwrap();
        // The root as another spelling of the same folder: its device and inode are the same.
        let roots = [RootId::of(&alias).unwrap()];
        let mut g = Guards::new(1);
        g.add_state(&roots, &[real.join(".local/state/filekit")], true);
        let probe = Probe::new(Path::new(".LOCAL/state/filekit/workspaces/x/history.db"));
        assert!(
            g.covering(0, &probe, |g| g.reason == Reason::State)
                .is_some()
        );
        assert!(
            g.within(0, &Probe::new(Path::new(".local")), |_| true)
                .is_some()
        );
        assert_eq!(
            g.state_places(),
            vec![(0, PathBuf::from(".local/state/filekit"))]
        );
        // A history named elsewhere, not made yet, relative to no root: nothing is guarded.
        let mut g = Guards::new(1);
        g.add_state(&roots, &[t.path().join("elsewhere/history.db")], false);
        assert!(g.none_in(0));
    }

    #[test]
    fn home_entries_are_found_by_identity_and_case() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().canonicalize().unwrap().join("home");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::create_dir_all(home.join("dotfiles")).unwrap();
        std::fs::write(home.join("dotfiles/bashrc"), "").unwrap();
        std::os::unix::fs::symlink(home.join("dotfiles/bashrc"), home.join(".bashrc")).unwrap();
        // The root is the home folder's parent: the entries are found below it.
        let roots = [RootId::of(t.path()).unwrap()];
        let mut g = Guards::new(1);
        g.add_home(&roots, &home);
        let hit = |p: &str| {
            g.covering(0, &Probe::new(Path::new(p)), |_| true)
                .map(|g| g.reason)
        };
        assert!(matches!(
            hit("home/.ssh/id_ed25519"),
            Some(Reason::Secret(_))
        ));
        assert!(matches!(hit("home/.SSH/config"), Some(Reason::Secret(_))));
        assert!(matches!(hit("home/.bashrc"), Some(Reason::RunsLater(_))));
        assert!(matches!(
            hit("home/dotfiles/bashrc"),
            Some(Reason::RunsLater(_))
        ));
        assert_eq!(hit("home/notes.txt"), None);
        assert!(
            g.unreadable(0, &Probe::new(Path::new("home/.ssh/id_rsa")), false)
                .is_some()
        );
        assert!(
            g.unreadable(0, &Probe::new(Path::new("home/.ssh/id_rsa.pub")), false)
                .is_none()
        );
        assert!(
            g.unreadable(0, &Probe::new(Path::new("home/.bashrc")), false)
                .is_none()
        );
        assert!(
            g.unreadable(0, &Probe::new(Path::new("home/.ssh/id_rsa")), true)
                .is_none()
        );
        assert!(
            g.within(0, &Probe::new(Path::new("home")), |_| true)
                .is_some()
        );
        // A root inside a protected folder is protected whole.
        let inside = [RootId::of(&home.join(".ssh")).unwrap()];
        let mut g = Guards::new(1);
        g.add_home(&inside, &home);
        assert!(
            g.covering(0, &Probe::new(Path::new("known_hosts")), |_| true)
                .is_some()
        );
    }
}
