package mqtest

import (
	"bytes"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// Topic is a topic a scene creates: its name and its read and write queue count.
type Topic struct {
	Name   string
	Queues int32
}

// CreateRoutedTopics creates each topic, in order, on the broker at brokerAddr (read and write
// queues, PermRead|PermWrite: CreateTopic) and waits until the name server at nsAddr routes it
// to one broker (WaitRouted). The first failure is returned; the topics before it stay.
func CreateRoutedTopics(cl *remoting.Client, brokerAddr, nsAddr string, topics ...Topic) error {
	for _, t := range topics {
		if err := CreateTopic(cl, brokerAddr, t.Name, t.Queues, protocol.PermRead|protocol.PermWrite); err != nil {
			return err
		}
		if err := WaitRouted(cl, nsAddr, t.Name, 1); err != nil {
			return err
		}
	}
	return nil
}

// QuietGroups turns NotifyConsumerIdsChangedEnable off in b's subscription group config of
// each group that has one: b then does not tell the group of membership changes
// (NOTIFY_CONSUMER_IDS_CHANGED), which would wake each member's rebalance on a goroutine of its
// own, at a time no run repeats; the scenario plays the rebalances itself.
func QuietGroups(b *broker.BrokerController, groups ...string) {
	sgm := b.SubscriptionGroupManager()
	for _, g := range groups {
		if sgc := sgm.FindSubscriptionGroupConfig(g); sgc != nil {
			cp := *sgc
			cp.NotifyConsumerIdsChangedEnable = false
			sgm.UpdateSubscriptionGroupConfig(cp)
		}
	}
}

// OneBroker is the embedded.Config of a chapter's cluster: a name server and one broker keeping
// their files under dir, logging to logger, the store with ManualServices on clk (the scenario
// plays reput, flush and the other loops) and small files (embedded.SmallFiles), then
// customize (nil: nothing more).
func OneBroker(dir string, logger *slog.Logger, clk clock.Clock, customize func(*broker.BrokerConfig, *store.MessageStoreConfig)) embedded.Config {
	return embedded.Config{
		Dir: dir, Brokers: 1, Logger: logger,
		StoreOptions: func(int) store.Options { return store.Options{ManualServices: true, Clock: clk} },
		Customize: func(_ int, bc *broker.BrokerConfig, sc *store.MessageStoreConfig) {
			embedded.SmallFiles(sc)
			if customize != nil {
				customize(bc, sc)
			}
		},
	}
}

// SceneConfig is what StartScene starts.
type SceneConfig struct {
	// Cluster is the embedded cluster (OneBroker, as a rule).
	Cluster embedded.Config
	// QuietGroups are the consumer groups the first broker does not notify (QuietGroups).
	QuietGroups []string
	// Topics are created on the first broker and routed before the producer starts (the
	// consumers' retry topics among them, which a first heartbeat would otherwise create on a
	// goroutine of its own).
	Topics []Topic
	// Producer is the scene's producer (ProducerConfig, as a rule), on the cluster's name server
	// when its NamesrvAddr is empty; a config with no ProducerGroup starts none.
	Producer producer.Config
}

// Scene is what a chapter's scenario runs on before its own clients: an embedded cluster, a
// remoting client for the scenario's own requests, and a started producer. Shutdown stops them.
type Scene struct {
	Cluster *embedded.Cluster
	// Client sends the scenario's own requests (Invoke, CreateTopic, QueryRoute).
	Client *remoting.Client
	// Producer is nil when SceneConfig.Producer named no group.
	Producer *producer.DefaultMQProducer
}

// StartScene starts cfg's cluster, quiets its groups, creates its topics and starts its
// producer, in that order. On an error what was started is shut down again.
func StartScene(cfg SceneConfig) (*Scene, error) {
	c, err := embedded.Start(cfg.Cluster)
	if err != nil {
		return nil, err
	}
	s := &Scene{Cluster: c, Client: remoting.NewClient(remoting.ClientConfig{}, nil)}
	QuietGroups(s.Master(), cfg.QuietGroups...)
	err = CreateRoutedTopics(s.Client, s.Master().BrokerAddr(), c.NamesrvAddr(), cfg.Topics...)
	if pc := cfg.Producer; err == nil && pc.ProducerGroup != "" {
		if pc.NamesrvAddr == "" {
			pc.NamesrvAddr = c.NamesrvAddr()
		}
		s.Producer, err = StartProducer(pc)
	}
	if err != nil {
		s.Shutdown()
		return nil, err
	}
	return s, nil
}

// Master is the cluster's first broker.
func (s *Scene) Master() *broker.BrokerController { return s.Cluster.Brokers[0] }

// Shutdown stops the producer, the client and the cluster. The scenario stops its consumers
// first.
func (s *Scene) Shutdown() {
	if s.Producer != nil {
		s.Producer.Shutdown()
	}
	s.Client.Shutdown()
	s.Cluster.Shutdown()
}

// StartProducer starts a producer from cfg.
func StartProducer(cfg producer.Config) (*producer.DefaultMQProducer, error) {
	p := producer.NewDefaultMQProducer(cfg)
	if err := p.Start(); err != nil {
		return nil, err
	}
	return p, nil
}

// Untraced runs f with the gate closed and opens it again after: f's steps stay out of the
// log; the scenario's own lines (Say, listeners) do not.
func (s *Stage) Untraced(f func()) {
	s.Gate.Close()
	defer s.Gate.Open()
	f()
}

// ExerciseStage is a stage for a chapter's exercise, its files in a test temp dir, its output kept
// in memory (Stage.Out.String reads it) and its gate open when open. start builds the scenario
// on it (a chapter's newScenario) and returns its shutdown; at t's cleanup that shutdown runs,
// the stage closes, and the log is printed when the test failed.
func ExerciseStage(t testing.TB, open bool, start func(*Stage) (shutdown func(), err error)) *Stage {
	t.Helper()
	stage, err := NewStage(&bytes.Buffer{}, t.TempDir(), "", open)
	require.NoError(t, err)
	shutdown, err := start(stage)
	require.NoError(t, err)
	t.Cleanup(func() {
		shutdown()
		stage.Close()
		if t.Failed() {
			t.Logf("the scenario's log:\n%s", stage.Out.String())
		}
	})
	return stage
}

// MustStartProducer starts a producer from cfg for a test: it fails the test on error and
// shuts the producer down at t's cleanup.
func MustStartProducer(t testing.TB, cfg producer.Config) *producer.DefaultMQProducer {
	t.Helper()
	p, err := StartProducer(cfg)
	require.NoError(t, err)
	t.Cleanup(p.Shutdown)
	return p
}

// Roster is a scenario's consumers by name ("A", "B"), in start order: what a chapter whose
// members join and leave looks its members up in. Safe for concurrent use (listeners and
// turnstiles run on the consumers' goroutines).
type Roster[M any] struct {
	mu    sync.Mutex
	names []string
	ms    []M
}

// Add appends member m under name.
func (r *Roster[M]) Add(name string, m M) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names = append(r.names, name)
	r.ms = append(r.ms, m)
}

// Get is the member named name (the zero M when there is none).
func (r *Roster[M]) Get(name string) M {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := slices.Index(r.names, name); i >= 0 {
		return r.ms[i]
	}
	var zero M
	return zero
}

// Remove forgets the member named name (one the scenario shut down).
func (r *Roster[M]) Remove(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := slices.Index(r.names, name); i >= 0 {
		r.names = slices.Delete(r.names, i, i+1)
		r.ms = slices.Delete(r.ms, i, i+1)
	}
}

// All is a copy of the members, in start order.
func (r *Roster[M]) All() []M {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ms)
}
