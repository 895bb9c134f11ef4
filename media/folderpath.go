package media

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of a folder path. MaxFolderName bounds the characters of one
// folder's name, as maxStem bounds a file name's stem; it applies to the
// folders created from now on (CreateFolder), not to those a library
// holds already.
const (
	MaxFolderBytes = 512
	MaxFolderDepth = 16
	MaxFolderName  = 100
)

// RootFolder is the folder every item is in unless told otherwise.
const RootFolder = "/"

// CleanFolder validates a folder path and returns its normal form: "/" or
// "/a/b" without a trailing slash. The empty string means the root. Errors
// wrap ErrBadInput.
func CleanFolder(p string) (string, error) {
	if p == "" || p == "/" {
		return RootFolder, nil
	}
	if len(p) > MaxFolderBytes {
		return "", errorf(ErrBadInput, "folder path longer than %d bytes", MaxFolderBytes)
	}
	if !utf8.ValidString(p) {
		return "", errorf(ErrBadInput, "folder path is not valid UTF-8")
	}
	if !strings.HasPrefix(p, "/") {
		return "", errorf(ErrBadInput, "folder path must begin with /")
	}
	for _, r := range p {
		if r == '\\' || unicode.IsControl(r) || r == utf8.RuneError {
			return "", errorf(ErrBadInput, "folder path contains a backslash or control character")
		}
	}
	p = strings.TrimSuffix(p, "/")
	segs := strings.Split(p[1:], "/")
	if len(segs) > MaxFolderDepth {
		return "", errorf(ErrBadInput, "folder path deeper than %d levels", MaxFolderDepth)
	}
	for _, s := range segs {
		switch {
		case s == "":
			return "", errorf(ErrBadInput, "folder path has an empty segment")
		case s == "." || s == "..":
			return "", errorf(ErrBadInput, "folder path has a . or .. segment")
		case strings.TrimSpace(s) != s:
			return "", errorf(ErrBadInput, "folder name begins or ends with a space")
		}
	}
	return p, nil
}

// checkNewFolder refuses, in a clean folder path, what a new folder may not
// have although an old one is still read: a name over MaxFolderName
// characters, and invisible formatting characters (bidirectional
// overrides and isolates, which make "/\u202eevil" show as "live", and
// zero-width ones), which file names cannot carry either
// (SanitizeFilename keeps [A-Za-z0-9._-] only). Joiners (U+200C, U+200D)
// stay: scripts and emoji need them.
func checkNewFolder(c string) error {
	for _, seg := range strings.Split(strings.TrimPrefix(c, "/"), "/") {
		if utf8.RuneCountInString(seg) > MaxFolderName {
			return errorf(ErrBadInput, "folder name longer than %d characters", MaxFolderName)
		}
	}
	for _, r := range c {
		if unicode.Is(unicode.Bidi_Control, r) || unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d' {
			return errorf(ErrBadInput, "folder path contains an invisible formatting character (U+%04X)", r)
		}
	}
	return nil
}

// ValidFolder reports why p is not a valid folder path, or nil. A trailing
// slash is allowed (CleanFolder removes it); the empty string is not.
func ValidFolder(p string) error {
	if p == "" {
		return errorf(ErrBadInput, "folder path must begin with /")
	}
	_, err := CleanFolder(p)
	return err
}

// folderParents lists the proper ancestors of a clean folder path, root
// excluded: "/a/b/c" gives "/a", "/a/b".
func folderParents(p string) []string {
	var out []string
	for i := 1; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return out
}

// below reports whether the clean path p lies strictly below folder dir.
func below(p, dir string) bool {
	if dir == RootFolder {
		return p != RootFolder
	}
	return strings.HasPrefix(p, dir+"/")
}
