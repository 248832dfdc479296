package benchgen

import "time"

// cloud-init's own debug log (var_log/cloud-init.log) and the console
// output of its stages and of user-data scripts (var_log/cloud-init-output.log).

var cloudInitModules = []string{
	"ssh", "ntp", "runcmd", "write-files", "users-groups", "growpart", "resizefs",
	"set-hostname", "update-etc-hosts", "rsyslog", "package-update-upgrade-install",
	"scripts-user", "final-message", "keys-to-console", "locale", "mounts", "disk-setup",
}

var cloudInitStages = []string{"init-local", "init-network", "modules-config", "modules-final"}

var metadataPaths = []string{
	"instance-id", "local-ipv4", "mac", "placement/availability-zone", "placement/region",
	"network/interfaces/macs/", "block-device-mapping/", "public-keys/", "services/domain",
}

// appendCloudInitHead appends "2026-11-29 04:00:12,345 - file.py[DEBUG]: ".
func appendCloudInitHead(g *gen, b []byte, file string) []byte {
	b = g.now.appendCloudInit(b)
	b = append(b, " - "...)
	b = append(b, file...)
	return append(b, "[DEBUG]: "...)
}

// cloudInitLine appends one line of var_log/cloud-init.log.
func cloudInitLine(g *gen, b []byte) []byte {
	module := pick(g.r, cloudInitModules)
	switch g.r.IntN(10) {
	case 0:
		b = appendCloudInitHead(g, b, "util.py")
		return append(b, "Reading from /proc/uptime (quiet=False)"...)
	case 1:
		b = appendCloudInitHead(g, b, "subp.py")
		b = append(b, "Running command ['systemctl', 'show', '--property', 'ActiveState', '--value', 'cloud-"...)
		b = append(b, pick(g.r, []string{"init", "config", "final"})...)
		return append(b, ".service'] with allowed return codes [0] (shell=False, capture=True)"...)
	case 2:
		b = appendCloudInitHead(g, b, "handlers.py")
		b = append(b, "start: "...)
		b = append(b, pick(g.r, cloudInitStages)...)
		b = append(b, "/config-"...)
		b = append(b, module...)
		b = append(b, ": running config-"...)
		b = append(b, module...)
		return append(b, " with frequency once-per-instance"...)
	case 3:
		b = appendCloudInitHead(g, b, "handlers.py")
		b = append(b, "finish: "...)
		b = append(b, pick(g.r, cloudInitStages)...)
		b = append(b, "/config-"...)
		b = append(b, module...)
		b = append(b, ": SUCCESS: config-"...)
		b = append(b, module...)
		b = append(b, " ran successfully and took "...)
		b = appendFraction(b, 0, g.r.Int64N(999), 3)
		return append(b, " seconds"...)
	case 4:
		b = appendCloudInitHead(g, b, "helpers.py")
		b = append(b, "config-"...)
		b = append(b, module...)
		return append(b, " already ran (freq=once-per-instance)"...)
	case 5:
		b = appendCloudInitHead(g, b, "url_helper.py")
		b = append(b, "[0/1] open 'http://169.254.169.254/2021-03-23/meta-data/"...)
		b = append(b, pick(g.r, metadataPaths)...)
		return append(b, "' with {'url': 'http://169.254.169.254/2021-03-23/meta-data/', 'stream': False, 'allow_redirects': True, 'method': 'GET', 'timeout': 5.0, 'headers': {'User-Agent': 'Cloud-Init/22.2.2', 'X-aws-ec2-metadata-token': 'REDACTED'}} configuration"...)
	case 6:
		b = appendCloudInitHead(g, b, "url_helper.py")
		b = append(b, "Read from http://169.254.169.254/2021-03-23/meta-data/"...)
		b = append(b, pick(g.r, metadataPaths)...)
		b = append(b, " (200, "...)
		b = appendInt(b, 5+g.r.IntN(60))
		return append(b, "b) after 1 attempts"...)
	case 7:
		b = appendCloudInitHead(g, b, "util.py")
		b = append(b, "Writing to /var/lib/cloud/instances/"...)
		b = append(b, g.id.instanceID...)
		b = append(b, "/sem/config_"...)
		b = append(b, module...)
		b = append(b, " - wb: [644] "...)
		b = appendInt(b, 20+g.r.IntN(10))
		return append(b, " bytes"...)
	case 8:
		b = appendCloudInitHead(g, b, "modules.py")
		b = append(b, "Running module "...)
		b = append(b, module...)
		b = append(b, " (<module 'cloudinit.config.cc_"...)
		b = append(b, module...)
		b = append(b, "' from '/usr/lib/python3.9/site-packages/cloudinit/config/cc_"...)
		b = append(b, module...)
		return append(b, ".py'>) with frequency once-per-instance"...)
	default:
		b = appendCloudInitHead(g, b, "util.py")
		b = append(b, "Restoring selinux mode for /var/lib/cloud/instances/"...)
		b = append(b, g.id.instanceID...)
		return append(b, "/sem (recursive=False)"...)
	}
}

var cloudOutputLines = []string{
	"ci-info: +--------+------+-----------------------------+---------------+--------+-------------------+",
	"ci-info: | Device |  Up  |           Address           |      Mask     | Scope  |     Hw-Address    |",
	"ci-info: |   lo   | True |          127.0.0.1          |   255.0.0.0   |  host  |         .         |",
	"ci-info: ++++++++++++++++++++++++++++++Route IPv4 info++++++++++++++++++++++++++++++",
	"ci-info: | Route | Destination |  Gateway  |     Genmask     | Interface | Flags |",
	"ci-info: |   0   |   0.0.0.0   |  10.0.0.1 |     0.0.0.0     |    ens5   |   UG  |",
	"Last metadata expiration check: 0:00:07 ago.",
	"Dependencies resolved.",
	"Nothing to do.",
	"Complete!",
	"Generating public/private ed25519 key pair.",
	"Your identification has been saved in /etc/ssh/ssh_host_ed25519_key",
	"The key fingerprint is:",
	"+---[ED25519 256]--+",
	"|        .o+=.    |",
	"+----[SHA256]-----+",
}

// cloudInitOutputLine appends one line of var_log/cloud-init-output.log.
func cloudInitOutputLine(g *gen, b []byte) []byte {
	switch g.r.IntN(8) {
	case 0:
		t := time.UnixMicro(g.now.micros).UTC()
		b = append(b, "Cloud-init v. 22.2.2 running '"...)
		b = append(b, pick(g.r, []string{"init-local", "init", "modules:config", "modules:final"})...)
		b = append(b, "' at "...)
		b = t.AppendFormat(b, time.RFC1123Z)
		b = append(b, ". Up "...)
		b = appendFraction(b, 5+g.r.Int64N(30), g.r.Int64N(100), 2)
		return append(b, " seconds."...)
	case 1:
		b = append(b, "ci-info: |  ens5  | True |          "...)
		b = append(b, g.id.ip...)
		return append(b, "          | 255.255.240.0 | global | 0a:1b:2c:3d:4e:5f |"...)
	case 2:
		b = append(b, "Package "...)
		b = append(b, pick(g.r, []string{"amazon-ssm-agent-3.3.2299.0-1.amzn2023.x86_64", "jq-1.7.1-49.amzn2023.0.2.x86_64", "nvme-cli-1.16-1.amzn2023.0.3.x86_64", "iptables-nft-1.8.8-3.amzn2023.0.2.x86_64"})...)
		return append(b, " is already installed."...)
	default:
		return append(b, pick(g.r, cloudOutputLines)...)
	}
}
