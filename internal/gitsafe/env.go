package gitsafe

import (
	"fmt"
	"strconv"
	"strings"
)

// Env is the environment of every git process: the caller's, without
// the variables that name a program for git to run or another repository
// to read (a caller that is itself a git hook has GIT_DIR set), and with
// the system configuration and attributes, prompts, optional locks and
// lazy fetches off. The caller's GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT
// are its own settings, and are kept.
func Env(environ []string) []string {
	out := make([]string, 0, len(environ)+5)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_ASKPASS",
			// git rev-parse --local-env-vars, but for the configuration
			"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
			"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE",
			"GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX",
			"GIT_SHALLOW_FILE", "GIT_CONFIG", "GIT_NAMESPACE", "GIT_QUARANTINE_PATH",
			// set below
			"GIT_CONFIG_NOSYSTEM", "GIT_ATTR_NOSYSTEM", "GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS", "GIT_NO_LAZY_FETCH":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0", "GIT_NO_LAZY_FETCH=1")
}

// AppendConfig returns env with settings added as git (2.31 and later)
// reads them, GIT_CONFIG_COUNT and GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n,
// after any the caller set. env itself is left as it is.
func AppendConfig(env []string, settings []Setting) []string {
	out := make([]string, 0, len(env)+2*len(settings)+1)
	n := 0
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			n, _ = strconv.Atoi(v)
			continue
		}
		out = append(out, kv)
	}
	for _, s := range settings {
		out = append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n, s.Key), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, s.Value))
		n++
	}
	return append(out, fmt.Sprintf("GIT_CONFIG_COUNT=%d", n))
}
