package acl

import "strings"

// Perm is a permission bit set as RocketMQ's acl module holds it: DENY 1, ANY 2, PUB 4, SUB 8.
// Java: org.apache.rocketmq.acl.plain... Permission (the byte constants).
type Perm uint8

// The permission bits; the values are RocketMQ's (pinned by TestPermValues).
const (
	PermDeny Perm = 1
	PermAny  Perm = 2
	PermPub  Perm = 4
	PermSub  Perm = 8
)

// ParsePerm reads a permission as plain_acl.yml writes it: "DENY", "PUB", "SUB", "PUB|SUB" or
// "SUB|PUB" (surrounding spaces ignored). Anything else, the empty string included, is DENY,
// as in Java: a typo never grants access.
// Java: Permission#parsePermFromString.
func ParsePerm(s string) Perm {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "PUB":
		return PermPub
	case "SUB":
		return PermSub
	case "PUB|SUB", "SUB|PUB":
		return PermPub | PermSub
	default:
		return PermDeny
	}
}

// String writes p as plain_acl.yml does ("PUB|SUB", "DENY", ...).
func (p Perm) String() string {
	switch {
	case p&PermDeny != 0:
		return "DENY"
	case p&(PermPub|PermSub) == PermPub|PermSub:
		return "PUB|SUB"
	case p&PermPub != 0:
		return "PUB"
	case p&PermSub != 0:
		return "SUB"
	case p&PermAny != 0:
		return "ANY"
	}
	return "DENY"
}

// Allows reports whether owned grants needed: a DENY bit refuses everything; a needed ANY is
// granted by PUB or SUB; otherwise one shared bit is enough.
// Java: Permission#checkPermission.
func (owned Perm) Allows(needed Perm) bool {
	if owned&PermDeny != 0 {
		return false
	}
	if needed&PermAny != 0 {
		return owned&(PermPub|PermSub) != 0
	}
	return needed&owned != 0
}
