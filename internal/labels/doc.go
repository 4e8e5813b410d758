// Package labels serves a template library from git at named labels
// (production, staging), each following a ref of one repository: the
// registry behind render serve --repo.
//
// A label's library is read from its commit's tree with package gitlib
// (never the work tree, never by running a program of the repository)
// and is served only once every variant of it loads. Refresh re-resolves
// the refs: a label whose commit changed is switched to the new library,
// or, when that does not load, stays on its last good one and says why.
// Lookups are lock-free and return immutable snapshots, so a render that
// started on one version finishes on it whatever a refresh does
// meanwhile. Labels whose commits hold the same library files share one
// loaded library.
package labels
