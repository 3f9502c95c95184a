package mqtest

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/remotingtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// Servers is what a scenario starts and must stop again, for a chapter that builds each
// broker itself (its own configs, hooks and clock) rather than through embedded.Start: an
// untraced name server, a remoting client for the scenario's own requests, and the brokers
// and producers started through it. Safe for concurrent use.
type Servers struct {
	Namesrv *namesrv.NamesrvController
	// Client sends the scenario's own requests (Invoke, CreateTopic, QueryRoute).
	Client *remoting.Client

	mu        sync.Mutex
	brokers   []*broker.BrokerController
	producers []*producer.DefaultMQProducer
}

// StartServers starts a name server keeping its files under dir, on an ephemeral loopback port.
func StartServers(dir string) (*Servers, error) {
	ns, err := embedded.StartNamesrv(dir, "", nil, nil)
	if err != nil {
		return nil, err
	}
	return &Servers{Namesrv: ns, Client: remoting.NewClient(remoting.ClientConfig{}, nil)}, nil
}

// MustStartServers is StartServers for a test: it fails the test on error and shuts the
// servers down at t's cleanup.
func MustStartServers(t testing.TB, dir string) *Servers {
	t.Helper()
	s, err := StartServers(dir)
	require.NoError(t, err)
	t.Cleanup(s.Shutdown)
	return s
}

// StartBroker starts a broker from its configs on an ephemeral loopback port (tr nil: untraced)
// and keeps it for Shutdown; opts are the broker's options (its clock, the store's Options).
func (s *Servers) StartBroker(bc broker.BrokerConfig, sc store.MessageStoreConfig, tr *trace.Tracer, opts ...broker.Option) (*broker.BrokerController, error) {
	b, err := embedded.StartBroker(bc, embedded.LoopbackServer(), sc, tr, opts...)
	if err != nil {
		return nil, err
	}
	return keep(&s.mu, &s.brokers, b), nil
}

// StartProducer starts a producer from cfg and keeps it for Shutdown.
func (s *Servers) StartProducer(cfg producer.Config) (*producer.DefaultMQProducer, error) {
	p, err := StartProducer(cfg)
	if err != nil {
		return nil, err
	}
	return keep(&s.mu, &s.producers, p), nil
}

// keep appends v to *list under mu and returns it.
func keep[T any](mu *sync.Mutex, list *[]T, v T) T {
	mu.Lock()
	defer mu.Unlock()
	*list = append(*list, v)
	return v
}

// Shutdown stops the producers, then the brokers (newest first), the client and the name server.
func (s *Servers) Shutdown() {
	s.mu.Lock()
	bs, ps := s.brokers, s.producers
	s.brokers, s.producers = nil, nil
	s.mu.Unlock()
	for _, p := range ps {
		p.Shutdown()
	}
	for i := len(bs) - 1; i >= 0; i-- {
		bs[i].Shutdown()
	}
	s.Client.Shutdown()
	s.Namesrv.Shutdown()
}

// StartCluster starts an embedded cluster for a test, as embedded.Start does with cfg, and
// shuts it down at t's cleanup. Its files go to a test temp dir unless cfg.Dir names one, and
// each broker's store has small files (64 KiB CommitLog, 100-unit ConsumeQueue), so tests roll
// files; cfg.Customize runs after that and may change them. It fails the test when the cluster
// does not start.
func StartCluster(t testing.TB, cfg embedded.Config) *embedded.Cluster {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	customize := cfg.Customize
	cfg.Customize = func(i int, bc *broker.BrokerConfig, sc *store.MessageStoreConfig) {
		embedded.SmallFiles(sc)
		if customize != nil {
			customize(i, bc, sc)
		}
	}
	c, err := embedded.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(c.Shutdown)
	return c
}

// StartACLCluster is StartCluster with aclEnable=true on every broker, reading the
// plain_acl.yml at aclFile.
func StartACLCluster(t testing.TB, aclFile string) *embedded.Cluster {
	t.Helper()
	return StartCluster(t, embedded.Config{Customize: func(_ int, bc *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		bc.AclEnable = true
		bc.PlainAclFile = aclFile
	}})
}

// StartTLSCluster is StartCluster whose name server and brokers run tls.server.mode=mode
// (disabled, permissive, enforcing) with a self-signed certificate generated at run time.
func StartTLSCluster(t testing.TB, mode string) *embedded.Cluster {
	t.Helper()
	cert, key := remotingtest.SelfSignedCert(t, t.TempDir())
	ts, err := remoting.TLSServerKeys{Mode: mode, CertPath: cert, KeyPath: key}.Build()
	require.NoError(t, err)
	return StartCluster(t, embedded.Config{TLS: ts})
}
