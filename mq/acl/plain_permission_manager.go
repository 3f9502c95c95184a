package acl

import (
	"bytes"
	"crypto/hmac"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/configfile"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
)

// AccessResource is what one request asks for: who signs it, from where, and the permissions
// it needs on topics and groups. The broker fills it from the request (by request code).
// Java: PlainAccessResource as PlainAccessValidator#parse builds it.
type AccessResource struct {
	AccessKey     string
	Signature     string
	SecurityToken string
	// Content is SignContent of the request (extFields and body).
	Content []byte
	// RemoteAddr is the client's "ip:port".
	RemoteAddr string
	// RequestCode names the request in refusals.
	RequestCode int32
	// NeedAdmin is set for codes only an admin account may send.
	NeedAdmin bool
	// Topics and Groups map names to the permission the request needs on them.
	Topics, Groups map[string]Perm
}

// ErrAccessDenied is wrapped by every refusal of Validate.
var ErrAccessDenied = errors.New("acl: access denied")

func denied(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrAccessDenied}, args...)...)
}

// PlainPermissionManager holds plain_acl.yml and checks requests against it; the file is
// reloaded when it changes (Watch). mu guards tab and data; fileMu serialises writes of the file.
// Java: PlainPermissionManager.
type PlainPermissionManager struct {
	path string
	log  *slog.Logger

	mu   sync.RWMutex
	tab  *table
	data PlainAccessData
	hash []byte // the bytes last loaded, to tell a change

	fileMu sync.Mutex
	watch  *service.ServiceThread
}

// NewPlainPermissionManager loads the file at path (a missing file is an empty table: every
// request outside a white list is refused). A file that does not parse is an error.
func NewPlainPermissionManager(path string, log *slog.Logger) (*PlainPermissionManager, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &PlainPermissionManager{path: path, log: log, tab: &table{accounts: map[string]*account{}}}
	if _, err := m.Reload(); err != nil {
		return nil, err
	}
	return m, nil
}

// Path is the plain_acl.yml this manager reads and writes.
func (m *PlainPermissionManager) Path() string { return m.path }

// Reload reads the file again; changed is false when its bytes are the ones loaded last. A file
// that does not parse leaves the table as it was and returns the error.
// Java: PlainPermissionManager#load (called by the file watcher).
func (m *PlainPermissionManager) Reload() (changed bool, err error) {
	raw, err := os.ReadFile(m.path)
	if errors.Is(err, fs.ErrNotExist) {
		raw, err = nil, nil
	}
	if err != nil {
		return false, fmt.Errorf("acl: read %s: %w", m.path, err)
	}
	m.mu.RLock()
	same := m.hash != nil && bytes.Equal(m.hash, raw)
	m.mu.RUnlock()
	if same {
		return false, nil
	}
	d, err := ParsePlainAccessData(raw)
	if err != nil {
		return false, err
	}
	tab, _ := buildTable(d)
	m.mu.Lock()
	m.tab, m.data, m.hash = tab, d, append([]byte{}, raw...)
	m.mu.Unlock()
	return true, nil
}

// Watch starts a service that reloads the file when its bytes change, checking every interval
// (Java's FileWatchService checks every 500 ms). Stop it with Shutdown.
func (m *PlainPermissionManager) Watch(interval time.Duration) {
	m.watch = service.New("AclFileWatchService")
	m.watch.RunEvery(interval, interval, func() {
		if changed, err := m.Reload(); err != nil {
			m.log.Warn("plain_acl.yml not reloaded; the previous table stays", "path", m.path, "err", err)
		} else if changed {
			m.log.Info("plain_acl.yml reloaded", "path", m.path)
		}
	})
}

// Shutdown stops Watch's service.
func (m *PlainPermissionManager) Shutdown() {
	if m.watch != nil {
		m.watch.Shutdown()
	}
}

// Validate checks r and returns nil or an error wrapping ErrAccessDenied whose text says what
// is missing (never a secret). In order: an address in globalWhiteRemoteAddresses passes;
// then the AccessKey must name an account; an address in the account's whiteRemoteAddress
// passes; then the signature must match; an admin account passes; then admin codes are
// refused and every topic and group must be granted (by its own entry, else the default).
// Java: PlainPermissionManager#validate.
func (m *PlainPermissionManager) Validate(r AccessResource) error {
	m.mu.RLock()
	tab := m.tab
	m.mu.RUnlock()
	for _, p := range tab.globalWhite {
		if p.Match(r.RemoteAddr) {
			return nil
		}
	}
	if r.AccessKey == "" {
		return denied("request code %d from %s carries no AccessKey", r.RequestCode, hostOf(r.RemoteAddr))
	}
	a := tab.accounts[r.AccessKey]
	if a == nil {
		return denied("no acl config for accessKey %s", r.AccessKey)
	}
	if a.white.Match(r.RemoteAddr) {
		return nil
	}
	want := Signature(r.Content, a.secretKey)
	if !hmac.Equal([]byte(want), []byte(r.Signature)) {
		return denied("signature check failed for accessKey %s (request code %d)", r.AccessKey, r.RequestCode)
	}
	if a.admin {
		return nil
	}
	if r.NeedAdmin {
		return denied("request code %d needs an admin account; accessKey %s is not admin", r.RequestCode, r.AccessKey)
	}
	if err := checkPerms("topic", r.Topics, a.topics, a.defaultTopic, a.accessKey); err != nil {
		return err
	}
	return checkPerms("group", r.Groups, a.groups, a.defaultGroup, a.accessKey)
}

// checkPerms checks needed names in sorted order (a refusal names the first missing one).
// Java: PlainPermissionManager#checkPerm.
func checkPerms(kind string, needed, owned map[string]Perm, def Perm, ak string) error {
	names := make([]string, 0, len(needed))
	for n := range needed {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		want := needed[n]
		if have, ok := owned[n]; ok {
			if !have.Allows(want) {
				return denied("no permission for %s %s: accessKey %s has %s, needs %s", kind, n, ak, have, want)
			}
		} else if !def.Allows(want) {
			return denied("no default permission for %s %s: accessKey %s has default%sPerm %s, needs %s",
				kind, n, ak, titled(kind), def, want)
		}
	}
	return nil
}

func titled(kind string) string {
	if kind == "topic" {
		return "Topic"
	}
	return "Group"
}

// Data is a copy of the table as the file has it.
func (m *PlainPermissionManager) Data() PlainAccessData {
	m.mu.RLock()
	defer m.mu.RUnlock()
	d := PlainAccessData{GlobalWhiteRemoteAddresses: slices.Clone(m.data.GlobalWhiteRemoteAddresses),
		Accounts: slices.Clone(m.data.Accounts)}
	return d
}

// UpdateAccount adds c, or replaces the account with its accessKey, and writes the file.
// Java: PlainPermissionManager#updateAccessConfig.
func (m *PlainPermissionManager) UpdateAccount(c PlainAccessConfig) error {
	return m.rewrite(func(d *PlainAccessData) error {
		for i := range d.Accounts {
			if d.Accounts[i].AccessKey == c.AccessKey {
				d.Accounts[i] = c
				return nil
			}
		}
		d.Accounts = append(d.Accounts, c)
		return nil
	})
}

// DeleteAccount removes the account of accessKey and writes the file; an unknown key is an error.
// Java: PlainPermissionManager#deleteAccessConfig.
func (m *PlainPermissionManager) DeleteAccount(accessKey string) error {
	return m.rewrite(func(d *PlainAccessData) error {
		for i := range d.Accounts {
			if d.Accounts[i].AccessKey == accessKey {
				d.Accounts = slices.Delete(d.Accounts, i, i+1)
				return nil
			}
		}
		return fmt.Errorf("acl: no account with accessKey %s", accessKey)
	})
}

// UpdateGlobalWhiteAddrs replaces globalWhiteRemoteAddresses and writes the file.
// Java: PlainPermissionManager#updateGlobalWhiteAddrsConfig.
func (m *PlainPermissionManager) UpdateGlobalWhiteAddrs(addrs []string) error {
	return m.rewrite(func(d *PlainAccessData) error {
		d.GlobalWhiteRemoteAddresses = slices.Clone(addrs)
		return nil
	})
}

// rewrite applies change to a copy of the data, checks the result, writes the file (atomically)
// and loads it. An error leaves file and table as they were.
func (m *PlainPermissionManager) rewrite(change func(*PlainAccessData) error) error {
	m.fileMu.Lock()
	defer m.fileMu.Unlock()
	d := m.Data()
	if err := change(&d); err != nil {
		return err
	}
	if _, err := buildTable(d); err != nil {
		return err
	}
	raw, err := d.Marshal()
	if err != nil {
		return err
	}
	if err := configfile.Store(m.path, raw); err != nil {
		return err
	}
	_, err = m.Reload()
	return err
}
