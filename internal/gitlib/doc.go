// Package gitlib reads a template library from a commit of a git
// repository: the library as it was committed, never the work tree, so
// that a prompt can be rendered as a tag or a branch makes it, side by
// side with another (render --ref, render diff, and the labels of render
// serve --repo).
//
// Only git's object database is read, with git ls-tree and git cat-file,
// and every git process is made by package gitsafe: no filter, driver,
// hook or fsmonitor of the repository runs, whoever wrote its
// configuration. Submodules are ignored, and symbolic links in the tree
// are left out: what a link names is not read, in the tree or outside it.
//
// A tree is listed before it is read: the list names each file's blob,
// which is the hash of its bytes, so two commits whose library (or one
// variant's files) are equal are told equal without reading a byte
// (Tree.Key, Tree.VariantKey), and a Cache loads such a library once.
package gitlib
