package gitsafe

import "strings"

// Setting is one git configuration setting imposed on a git process.
type Setting struct{ Key, Value string }

// Fixed are the settings of every git process, whatever the repository.
func Fixed() []Setting {
	return []Setting{
		{"core.fsmonitor", "false"},     // a program git status runs to learn what changed
		{"core.hooksPath", "/dev/null"}, // the repository's hooks (post-index-change, ...)
		{"core.pager", "cat"},
		{"log.showSignature", "false"}, // runs gpg.program for each signed commit git log shows
		{"protocol.allow", "never"},    // a lazy fetch of a partial clone: a remote, or ext:: (a command)
		{"core.sshCommand", "false"},
		{"core.askPass", ""},
		{"credential.helper", ""},
		{"core.alternateRefsCommand", ""},
		// Submodules are never looked into: git status runs git status in
		// each, with the submodule's own configuration, and status.
		// submoduleSummary and diff.submodule=log|diff run more. A
		// .gitmodules or config that says otherwise for a submodule is
		// overruled by name (see package gather).
		{"diff.ignoreSubmodules", "all"},
		{"submodule.recurse", "false"},
		{"status.submoduleSummary", "false"},
		{"diff.submodule", "short"},
		{"fetch.recurseSubmodules", "false"},
		{"gc.auto", "0"}, // no git gc --auto after a command
		{"maintenance.auto", "false"},
	}
}

// Overrides returns what a setting of the repository's own is overridden
// with, when it names a program or picks one. Of the drivers
// .gitattributes picks by name, filter.<name>.clean (run by git status on
// a changed file), smudge and process are emptied, which git takes as no
// filter (and made optional: a required filter would fail the command);
// diff.<name>.textconv becomes cat, which shows the file as it is;
// diff.<name>.command, diff.external and merge.<name>.driver are emptied,
// which git cannot run, so that a diff through one fails rather than runs
// it (git has no setting that unsets one: an empty diff.external for every
// repository would fail every git diff).
// Aliases and credential helpers are emptied, the signature programs are
// git's defaults, every protocol is never allowed (a lazy fetch), and
// there is no attributes file.
func Overrides(key string) []Setting {
	section, rest, _ := strings.Cut(key, ".")
	sub, name := "", rest
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		sub, name = rest[:i], rest[i+1:]
	}
	switch {
	case section == "filter" && sub != "" && (name == "clean" || name == "smudge" || name == "process"):
		return []Setting{{key, ""}, {"filter." + sub + ".required", "false"}}
	case section == "diff" && sub != "" && name == "textconv":
		return []Setting{{key, "cat"}} // the file as it is
	case key == "diff.external", section == "diff" && sub != "" && name == "command",
		section == "merge" && sub != "" && name == "driver",
		section == "alias",
		section == "credential" && name == "helper",
		key == "gpg.ssh.defaultkeycommand":
		return []Setting{{key, ""}}
	case key == "gpg.program" || key == "gpg.openpgp.program":
		return []Setting{{key, "gpg"}}
	case key == "gpg.x509.program":
		return []Setting{{key, "gpgsm"}}
	case key == "gpg.ssh.program":
		return []Setting{{key, "ssh-keygen"}}
	case section == "protocol" && sub != "" && name == "allow":
		return []Setting{{key, "never"}}
	case key == "core.attributesfile":
		return []Setting{{key, "/dev/null"}}
	}
	return nil
}
