// Package gitsafe makes git processes that run none of a repository's
// programs, for reading repositories that may be anyone's: a checkout that
// render gather reads (--dir), a repository that versions a template
// library (render --ref, render diff, render serve --repo).
//
// Read as git reads it, a repository's configuration (.git/config and what
// it includes) and hooks can make a plain git command run a program:
// core.fsmonitor, a clean filter named by .gitattributes, a hook,
// gpg.program through log.showSignature, a lazy fetch of a partial clone
// through an ext:: remote, an alias. Every git process made by Git.Command
// has all of that switched off, by settings given on its command line and
// in its environment, where they win over every configuration file; the
// system configuration is not read, and the variables that name another
// repository or a program are dropped. Where a repository may reach
// (a work tree or objects elsewhere) is its callers' policy, not this
// package's.
package gitsafe
