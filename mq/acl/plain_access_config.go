package acl

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// PlainAccessData is conf/plain_acl.yml: the white list every account shares and the accounts.
//
//	globalWhiteRemoteAddresses:
//	  - 10.10.103.*
//	accounts:
//	  - accessKey: RocketMQ
//	    secretKey: 12345678
//	    whiteRemoteAddress:
//	    admin: false
//	    defaultTopicPerm: DENY
//	    defaultGroupPerm: SUB
//	    topicPerms:
//	      - topicA=DENY
//	      - topicB=PUB|SUB
//	    groupPerms:
//	      - groupA=SUB
//
// Java: PlainPermissionManager's view of plain_acl.yml (AclConfig, PlainAccessConfig).
type PlainAccessData struct {
	GlobalWhiteRemoteAddresses []string            `yaml:"globalWhiteRemoteAddresses"`
	Accounts                   []PlainAccessConfig `yaml:"accounts"`
}

// PlainAccessConfig is one account of plain_acl.yml. Perm strings are ParsePerm's; an entry of
// TopicPerms or GroupPerms is "name=PERM". Java: org.apache.rocketmq.common.PlainAccessConfig.
type PlainAccessConfig struct {
	AccessKey          string   `yaml:"accessKey" json:"accessKey"`
	SecretKey          string   `yaml:"secretKey" json:"secretKey"`
	WhiteRemoteAddress string   `yaml:"whiteRemoteAddress" json:"whiteRemoteAddress"`
	Admin              bool     `yaml:"admin" json:"admin"`
	DefaultTopicPerm   string   `yaml:"defaultTopicPerm" json:"defaultTopicPerm"`
	DefaultGroupPerm   string   `yaml:"defaultGroupPerm" json:"defaultGroupPerm"`
	TopicPerms         []string `yaml:"topicPerms" json:"topicPerms"`
	GroupPerms         []string `yaml:"groupPerms" json:"groupPerms"`
}

// minKeyLength is the shortest accessKey and secretKey Java accepts (AclUtils checks > 5).
const minKeyLength = 6

// ParsePlainAccessData reads plain_acl.yml. It refuses (naming the account by its accessKey,
// never showing a secretKey) an account without accessKey, keys shorter than 6 characters, an
// accessKey listed twice, a perm entry without '=' and a white-list entry that does not parse.
func ParsePlainAccessData(data []byte) (PlainAccessData, error) {
	var d PlainAccessData
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&d); err != nil && err.Error() != "EOF" {
		return d, fmt.Errorf("acl: plain_acl.yml: %w", err)
	}
	_, err := buildTable(d)
	return d, err
}

// Marshal writes d as YAML in plain_acl.yml's layout.
func (d PlainAccessData) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("acl: write plain_acl.yml: %w", err)
	}
	return buf.Bytes(), enc.Close()
}

// account is a PlainAccessConfig ready for checks. Java: PlainAccessResource.
type account struct {
	accessKey, secretKey string
	white                AddressPattern
	admin                bool
	defaultTopic         Perm
	defaultGroup         Perm
	topics, groups       map[string]Perm
}

// table is what a PlainPermissionManager checks against.
type table struct {
	globalWhite []AddressPattern
	accounts    map[string]*account
}

func buildTable(d PlainAccessData) (*table, error) {
	t := &table{accounts: map[string]*account{}}
	for _, s := range d.GlobalWhiteRemoteAddresses {
		p, err := ParseAddressPattern(s)
		if err != nil {
			return nil, err
		}
		t.globalWhite = append(t.globalWhite, p)
	}
	for i, c := range d.Accounts {
		a, err := buildAccount(c)
		if err != nil {
			return nil, fmt.Errorf("acl: account %d: %w", i+1, err)
		}
		if t.accounts[a.accessKey] != nil {
			return nil, fmt.Errorf("acl: accessKey %s is listed twice", a.accessKey)
		}
		t.accounts[a.accessKey] = a
	}
	return t, nil
}

func buildAccount(c PlainAccessConfig) (*account, error) {
	if len(c.AccessKey) < minKeyLength {
		return nil, fmt.Errorf("accessKey %q must be at least %d characters", c.AccessKey, minKeyLength)
	}
	if len(c.SecretKey) < minKeyLength {
		return nil, fmt.Errorf("the secretKey of accessKey %s must be at least %d characters", c.AccessKey, minKeyLength)
	}
	white, err := ParseAddressPattern(c.WhiteRemoteAddress)
	if err != nil {
		return nil, fmt.Errorf("accessKey %s: %w", c.AccessKey, err)
	}
	a := &account{accessKey: c.AccessKey, secretKey: c.SecretKey, white: white, admin: c.Admin,
		defaultTopic: ParsePerm(c.DefaultTopicPerm), defaultGroup: ParsePerm(c.DefaultGroupPerm)}
	if a.topics, err = permMap(c.TopicPerms); err == nil {
		a.groups, err = permMap(c.GroupPerms)
	}
	if err != nil {
		return nil, fmt.Errorf("accessKey %s: %w", c.AccessKey, err)
	}
	return a, nil
}

// permMap reads "name=PERM" entries.
func permMap(entries []string) (map[string]Perm, error) {
	m := make(map[string]Perm, len(entries))
	for _, e := range entries {
		name, perm, ok := strings.Cut(e, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("perm entry %q is not name=PERM", e)
		}
		m[strings.TrimSpace(name)] = ParsePerm(perm)
	}
	return m, nil
}
