package transaction

import (
	"log/slog"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
)

// CheckConfig is the check's part of BrokerConfig. Java: BrokerConfig's transaction keys.
type CheckConfig struct {
	// TransactionTimeOut: a half message younger than this is not checked yet (6 s).
	TransactionTimeOut time.Duration
	// TransactionCheckMax: after this many checks a half message is discarded (15).
	TransactionCheckMax int
	// TransactionCheckInterval is the period of the check service (60 s).
	TransactionCheckInterval time.Duration
}

// TransactionalMessageCheckService runs a check pass every transactionCheckInterval.
// Mirrors org.apache.rocketmq.broker.transaction.TransactionalMessageCheckService.
type TransactionalMessageCheckService struct {
	cfg      CheckConfig
	impl     *TransactionalMessageServiceImpl
	listener CheckListener
	thread   *service.ServiceThread
}

// NewTransactionalMessageCheckService returns the (not started) service.
func NewTransactionalMessageCheckService(cfg CheckConfig, impl *TransactionalMessageServiceImpl, listener CheckListener) *TransactionalMessageCheckService {
	return &TransactionalMessageCheckService{cfg: cfg, impl: impl, listener: listener,
		thread: service.New("TransactionalMessageCheckService")}
}

// Start runs OnWaitEnd after every wait of transactionCheckInterval (the first one too).
// Java: TransactionalMessageCheckService#run (waitForRunning(checkInterval) → onWaitEnd).
func (s *TransactionalMessageCheckService) Start() {
	s.thread.RunEvery(s.cfg.TransactionCheckInterval, s.cfg.TransactionCheckInterval, func() { s.OnWaitEnd() })
}

// Shutdown stops the loop and waits for a pass in progress.
func (s *TransactionalMessageCheckService) Shutdown() { s.thread.Shutdown() }

// OnWaitEnd is one pass: Check with transactionTimeOut and transactionCheckMax. Chapters and
// tests call it directly. Java: TransactionalMessageCheckService#onWaitEnd.
func (s *TransactionalMessageCheckService) OnWaitEnd() CheckResult {
	if tr := s.impl.bridge.d.Tracer; tr.Enabled() {
		tr.Step("TransactionalMessageCheckService#onWaitEnd", slog.Duration("transactionTimeOut", s.cfg.TransactionTimeOut),
			slog.Int("transactionCheckMax", s.cfg.TransactionCheckMax))
	}
	return s.impl.Check(s.cfg.TransactionTimeOut, s.cfg.TransactionCheckMax, s.listener)
}
