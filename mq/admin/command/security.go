package command

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
)

// ToolsFile is where mqadmin reads its ACL credentials, under ROCKETMQ_HOME. Java:
// MixAll.ACL_CONF_TOOLS_FILE.
const ToolsFile = "conf/tools.yml"

// toolsConfig is conf/tools.yml: the account mqadmin signs with.
type toolsConfig struct {
	AccessKey     string `yaml:"accessKey"`
	SecretKey     string `yaml:"secretKey"`
	SecurityToken string `yaml:"securityToken"`
}

// securityHelp is what mqadmin's help says about credentials and TLS.
//
// Deviation: Java's mqadmin reads the TLS keys as system properties (-Dtls.enable=true) or from
// tls.config.file; a Go binary has no system properties, so mqadmin reads environment variables
// instead, each RocketMQ's key upper-cased with "_" for ".".
const securityHelp = `ACL: with ROCKETMQ_HOME set, requests are signed with accessKey and secretKey of
   $ROCKETMQ_HOME/conf/tools.yml (no file: unsigned).
TLS: environment variables TLS_ENABLE=true (tls.enable), TLS_CLIENT_CERTPATH, TLS_CLIENT_KEYPATH,
   TLS_CLIENT_AUTHSERVER=true, TLS_CLIENT_TRUSTCERTPATH (tls.client.*).
`

// security applies mqadmin's credentials and TLS settings to cfg: the accessKey and secretKey
// of $ROCKETMQ_HOME/conf/tools.yml (no ROCKETMQ_HOME, no file, or a blank key: unsigned) and the
// TLSEnv variables (TLS_ENABLE not "true": plain). An unreadable or malformed tools.yml and an
// unreadable certificate file are errors. Java: MQAdminStartup#main0 with AclUtils#getAclRPCHook,
// and TlsSystemConfig's client keys.
func security(cfg *admin.Config, getenv func(string) string) error {
	if home := getenv("ROCKETMQ_HOME"); home != "" {
		path := filepath.Join(home, ToolsFile)
		data, err := os.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fmt.Errorf("read %s: %w", path, err)
		default:
			var tc toolsConfig
			if err := yaml.Unmarshal(data, &tc); err != nil {
				return fmt.Errorf("parse %s: %w", path, err)
			}
			if strings.TrimSpace(tc.AccessKey) != "" && strings.TrimSpace(tc.SecretKey) != "" {
				cfg.AccessKey, cfg.SecretKey, cfg.SecurityToken = tc.AccessKey, tc.SecretKey, tc.SecurityToken
			}
		}
	}
	isTrue := func(env string) bool { return strings.EqualFold(strings.TrimSpace(getenv(env)), "true") }
	keys := remoting.TLSClientKeys{
		Enable:        isTrue("TLS_ENABLE"),
		CertPath:      getenv("TLS_CLIENT_CERTPATH"),
		KeyPath:       getenv("TLS_CLIENT_KEYPATH"),
		AuthServer:    isTrue("TLS_CLIENT_AUTHSERVER"),
		TrustCertPath: getenv("TLS_CLIENT_TRUSTCERTPATH"),
	}
	tc, err := keys.Build()
	if err != nil {
		return err
	}
	cfg.Remoting.TLS = tc
	return nil
}
