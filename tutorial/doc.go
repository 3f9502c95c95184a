// Package tutorial is the book's text: README.md (the front page and reading order) and one
// chNN-*.md per chapter. It has no code; its test keeps the text true to the code — every Go
// file and identifier the text links to exists, and every log line it quotes is in the
// chapter's golden file.
package tutorial
