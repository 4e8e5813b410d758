package engine

import "runtime/debug"

// Build is what the running program was built from: its module version
// and the version control state go build stamped into it (empty when it
// was built without: go test, or a copy without .git).
type Build struct {
	Version  string `json:"version"`            // the module version, as Version
	Revision string `json:"revision,omitempty"` // the commit (vcs.revision)
	Time     string `json:"vcs_time,omitempty"` // the commit's time, RFC 3339 (vcs.time)
	Modified bool   `json:"modified,omitempty"` // the work tree had changes not committed (vcs.modified)
}

// BuildInfo is the Build of the running program, read from its build
// information.
func BuildInfo() Build {
	b := Build{Version: Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}
