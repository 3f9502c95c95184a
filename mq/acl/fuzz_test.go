package acl

import "testing"

// FuzzParsePlainAccessData: any file bytes give an error or a table, never a panic; a parsed
// file validates a request without panicking.
func FuzzParsePlainAccessData(f *testing.F) {
	f.Add([]byte(exampleYML))
	f.Add([]byte("accounts: [{accessKey: abcdef, secretKey: abcdef, topicPerms: [a=PUB]}]"))
	f.Add([]byte("globalWhiteRemoteAddresses: ['1.2.{3,4}']"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParsePlainAccessData(data)
		if err != nil {
			return
		}
		tab, err := buildTable(d)
		if err != nil {
			t.Fatalf("parsed data does not build: %v", err)
		}
		m := &PlainPermissionManager{tab: tab}
		_ = m.Validate(AccessResource{AccessKey: "abcdef", RemoteAddr: "1.2.3.4:5", Topics: map[string]Perm{"a": PermPub}})
	})
}

// FuzzAddressPattern: any pattern and address give an answer, never a panic.
func FuzzAddressPattern(f *testing.F) {
	for _, s := range []string{"*", "1.2.3.{4,5}", "1.2.3.1-5", "1.2.*", "a,b", "{", "1.{", "::1"} {
		f.Add(s, "1.2.3.4:5")
	}
	f.Fuzz(func(t *testing.T, pattern, addr string) {
		if p, err := ParseAddressPattern(pattern); err == nil {
			_ = p.Match(addr)
		}
	})
}
