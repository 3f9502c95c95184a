package acl

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// AddressPattern is a parsed white-list entry. It matches an IPv4 address (a remote address's
// port, "ip:port", is ignored). The forms, as RocketMQ's RemoteAddressStrategyFactory reads them:
//
//	""                    matches nothing (no white list)
//	"*" or "*.*.*.*"      matches every address
//	"192.168.0.1"         one address
//	"192.168.0.{1,2,9}"   a list of last-segment values (also "192.168.{1,2}" for a shorter prefix)
//	"192.168.1.1,192.168.1.2"  a list of whole addresses
//	"192.168.*", "192.168.1.*", "192.168.1.1-5", "192.168.1-3.*"  ranges: each segment a
//	                      number, "a-b" or "*"; missing trailing segments are "*"
//
// Deviation: Java also reads IPv6 patterns; this broker reads IPv6 only as one exact address.
type AddressPattern struct {
	text string
	kind patternKind
	// segs are the [min,max] of each IPv4 segment (kindRange); addrs the address (kindOne) or
	// the entries (kindList), subs the entries parsed (kindList).
	segs  [4][2]int
	addrs []string
	subs  []AddressPattern
}

type patternKind uint8

const (
	kindBlank patternKind = iota
	kindAll
	kindOne
	kindList
	kindRange
)

// ParseAddressPattern reads one white-list entry; an error names the entry and what is wrong.
// Java: RemoteAddressStrategyFactory#getRemoteAddressStrategy.
func ParseAddressPattern(s string) (AddressPattern, error) {
	s = strings.TrimSpace(s)
	p := AddressPattern{text: s}
	switch {
	case s == "":
		p.kind = kindBlank
		return p, nil
	case s == "*" || s == "*.*.*.*":
		p.kind = kindAll
		return p, nil
	case strings.Contains(s, "{"):
		open, end := strings.Index(s, "{"), strings.LastIndex(s, "}")
		if end != len(s)-1 || open == 0 || s[open-1] != '.' {
			return p, fmt.Errorf("acl: address pattern %q: a {a,b} list ends the pattern after a '.'", s)
		}
		prefix := s[:open]
		for _, v := range strings.Split(s[open+1:end], ",") {
			addr := prefix + strings.TrimSpace(v)
			for strings.Count(addr, ".") < 3 { // "192.168.{1,2}" lists 192.168.1.* style prefixes
				addr += ".*"
			}
			p.addrs = append(p.addrs, addr)
		}
		return listOf(p)
	case strings.Contains(s, ","):
		p.addrs = strings.Split(s, ",")
		return listOf(p)
	case net.ParseIP(s) != nil:
		p.kind, p.addrs = kindOne, []string{s}
		return p, nil
	}
	p.kind = kindRange
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return p, fmt.Errorf("acl: address pattern %q: more than 4 segments", s)
	}
	for i := range 4 {
		if i >= len(parts) || parts[i] == "*" {
			p.segs[i] = [2]int{0, 255}
			continue
		}
		lo, hi, isRange := strings.Cut(parts[i], "-")
		a, err1 := segment(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = segment(hi)
		}
		if err1 != nil || err2 != nil || a > b {
			return p, fmt.Errorf("acl: address pattern %q: segment %q is not a number 0-255, a range a-b or *", s, parts[i])
		}
		p.segs[i] = [2]int{a, b}
	}
	return p, nil
}

// listOf checks each entry of a list pattern (each an address or a pattern itself).
func listOf(p AddressPattern) (AddressPattern, error) {
	p.kind = kindList
	for i, a := range p.addrs {
		a = strings.TrimSpace(a)
		p.addrs[i] = a
		sub, err := ParseAddressPattern(a)
		if err != nil || a == "" || strings.ContainsAny(a, "{,") {
			return p, fmt.Errorf("acl: address pattern %q: entry %q is not an address", p.text, a)
		}
		p.subs = append(p.subs, sub)
	}
	return p, nil
}

func segment(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 255 {
		return 0, fmt.Errorf("bad segment %q", s)
	}
	return n, nil
}

// String is the pattern as written.
func (p AddressPattern) String() string { return p.text }

// Match reports whether remoteAddr ("ip" or "ip:port") is covered by the pattern.
// Java: RemoteAddressStrategy#match.
func (p AddressPattern) Match(remoteAddr string) bool {
	ip := hostOf(remoteAddr)
	switch p.kind {
	case kindAll:
		return true
	case kindOne:
		return ip == p.addrs[0]
	case kindList:
		for _, sub := range p.subs {
			if sub.Match(ip) {
				return true
			}
		}
		return false
	case kindRange:
		parts := strings.Split(ip, ".")
		if len(parts) != 4 {
			return false
		}
		for i, s := range parts {
			n, err := segment(s)
			if err != nil || n < p.segs[i][0] || n > p.segs[i][1] {
				return false
			}
		}
		return true
	}
	return false
}

// hostOf strips a port: "1.2.3.4:5" → "1.2.3.4", "[::1]:5" → "::1"; an address without one stays.
func hostOf(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}
