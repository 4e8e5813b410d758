package gitsafe

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestGitEnvironment: the variables that name a program or another
// repository are dropped, the caller's own configuration variables kept,
// and the package's settings added after them.
func TestGitEnvironment(t *testing.T) {
	env := Env([]string{"HOME=/h", "GIT_PAGER=evil", "GIT_EXTERNAL_DIFF=evil", "GIT_DIR=/elsewhere/.git",
		"GIT_WORK_TREE=/root", "GIT_CONFIG=/elsewhere/config", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=me"})
	got := AppendConfig(env, []Setting{{"filter.a=b.clean", ""}, {"filter.a=b.required", "false"}})
	want := []string{"HOME=/h", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=me",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_NO_LAZY_FETCH=1",
		"GIT_CONFIG_KEY_1=filter.a=b.clean", "GIT_CONFIG_VALUE_1=", "GIT_CONFIG_KEY_2=filter.a=b.required", "GIT_CONFIG_VALUE_2=false", "GIT_CONFIG_COUNT=3"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("environment\n got %q\nwant %q", got, want)
	}
	if !slices.Contains(env, "GIT_CONFIG_COUNT=1") {
		t.Errorf("AppendConfig changed the environment it was given: %q", env)
	}
}

// TestOverrides: what each setting of a repository's own that names a
// program becomes; the others are left alone.
func TestOverrides(t *testing.T) {
	cases := []struct {
		key  string
		want []Setting
	}{
		{"filter.Evil.clean", []Setting{{"filter.Evil.clean", ""}, {"filter.Evil.required", "false"}}},
		{"filter.a.b.process", []Setting{{"filter.a.b.process", ""}, {"filter.a.b.required", "false"}}},
		{"filter.evil.required", nil},
		{"diff.evil.textconv", []Setting{{"diff.evil.textconv", "cat"}}},
		{"diff.evil.command", []Setting{{"diff.evil.command", ""}}},
		{"diff.external", []Setting{{"diff.external", ""}}},
		{"diff.renames", nil},
		{"merge.evil.driver", []Setting{{"merge.evil.driver", ""}}},
		{"alias.st", []Setting{{"alias.st", ""}}},
		{"credential.https://example.com.helper", []Setting{{"credential.https://example.com.helper", ""}}},
		{"protocol.ext.allow", []Setting{{"protocol.ext.allow", "never"}}},
		{"gpg.program", []Setting{{"gpg.program", "gpg"}}},
		{"gpg.ssh.program", []Setting{{"gpg.ssh.program", "ssh-keygen"}}},
		{"gpg.format", nil},
		{"core.attributesfile", []Setting{{"core.attributesfile", "/dev/null"}}},
		{"submodule.sub.ignore", nil},
	}
	for _, c := range cases {
		if got := Overrides(c.key); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.key, got, c.want)
		}
	}
}

// TestStderr: what a failure's stderr gives a message is the line that says
// why git failed, not a note git printed after it, such as the one that
// ends its search for a repository at a mount point.
func TestStderr(t *testing.T) {
	for stderr, want := range map[string]string{
		"fatal: not a git repository (or any of the parent directories): .git\n":                                                                           ": fatal: not a git repository (or any of the parent directories): .git",
		"fatal: not a git repository (or any parent up to mount point /mnt)\nStopping at filesystem boundary (GIT_DISCOVERY_ACROSS_FILESYSTEM not set).\n": ": fatal: not a git repository (or any parent up to mount point /mnt)",
		"warning: a\nerror: b\nhint: c\n":    ": error: b",
		"something went wrong\n":             ": something went wrong",
		"":                                   "",
		"fatal: " + strings.Repeat("é", 300): ": fatal: " + strings.Repeat("é", 193),
	} {
		if got := Stderr(&exec.ExitError{Stderr: []byte(stderr)}); got != want {
			t.Errorf("Stderr of %q = %q, want %q", stderr, got, want)
		}
	}
	if got := Stderr(errors.New("not an exit")); got != "" {
		t.Errorf("Stderr of an error that is no exit = %q", got)
	}
}
