package benchgen

// nodeadm's zap console lines (`<level> <file:line> <msg> {<fields>}`) as
// the nodeadm-config and nodeadm-run units log them on every boot. The
// files replay one boot after another.

// nodeadmConfigRun is what nodeadm-config logs on one successful boot; the
// systemd lines around it are written by nodeadmLine.
func nodeadmConfigRun(id *identity) []string {
	return []string{
		`info init/init.go:54 Checking user is root..`,
		`info init/init.go:62 Loading configuration.. {"configSource": ["imds://user-data"], "configCache": "/run/eks/nodeadm/config.json"}`,
		`info init/init.go:78 Setting up nodeadm environment aspect...`,
		`info init/init.go:86 Enriching configuration..`,
		`info init/init.go:171 Fetching kubelet version..`,
		`info init/init.go:178 Fetched kubelet version {"version": "` + kubeletVersion + `"}`,
		`info init/init.go:184 Fetching instance details..`,
		`info init/init.go:198 Instance details populated {"details": {"id":"` + id.instanceID + `","region":"` + id.region + `","type":"` + id.instanceType + `","availabilityZone":"` + id.zone + `","privateDnsName":"` + id.hostname + `"}}`,
		`info init/init.go:204 Fetching default options...`,
		`info init/init.go:212 Default options populated {"defaults": {"sandboxImage":"` + ecrRegistry + `/eks/pause:3.10"}}`,
		`info init/init.go:99 Validating configuration..`,
		`info init/init.go:104 Creating daemon manager..`,
		`info init/init.go:130 Setting up system config aspects...`,
		`info init/init.go:141 Setting up system aspect.. {"name": "local-disk"}`,
		`info system/local_disk.go:41 Not configuring local disks!`,
		`info init/init.go:145 Set up system aspect {"name": "local-disk"}`,
		`info init/init.go:141 Setting up system aspect.. {"name": "networking"}`,
		`info init/init.go:145 Set up system aspect {"name": "networking"}`,
		`info init/init.go:150 Configuring daemons...`,
		`info init/init.go:157 Configuring daemon... {"name": "containerd"}`,
		`info containerd/config.go:58 Writing containerd config to file.. {"path": "/etc/containerd/config.toml"}`,
		`info init/init.go:161 Configured daemon {"name": "containerd"}`,
		`info init/init.go:157 Configuring daemon... {"name": "kubelet"}`,
		`info kubelet/config.go:362 Writing kubelet config to file.. {"path": "/etc/kubernetes/kubelet/config.json"}`,
		`info init/init.go:161 Configured daemon {"name": "kubelet"}`,
		`info init/init.go:121 done!`,
	}
}

// nodeadmRunRun is what nodeadm-run logs on one successful boot.
func nodeadmRunRun() []string {
	var lines []string
	lines = append(lines,
		`info init/init.go:54 Checking user is root..`,
		`info init/init.go:62 Loading configuration.. {"configSource": ["imds://user-data"], "configCache": "/run/eks/nodeadm/config.json"}`,
		`info init/init.go:110 Setting up system run aspects...`,
		`info init/init.go:115 Running daemons...`,
	)
	for _, d := range []string{"containerd", "kubelet"} {
		lines = append(lines,
			`info init/init.go:230 Ensuring daemon is running.. {"name": "`+d+`"}`,
			`info init/init.go:236 Daemon is running {"name": "`+d+`"}`,
			`info init/init.go:240 Running post-launch tasks.. {"name": "`+d+`"}`,
			`info init/init.go:244 Finished post-launch tasks {"name": "`+d+`"}`,
		)
	}
	return append(lines, `info init/init.go:121 done!`)
}

// nodeadmUnit is one nodeadm unit with the lines of one boot.
type nodeadmUnit struct {
	unit  string // nodeadm-config
	title string // EKS Nodeadm Config
	pid   int
	lines []string
}

// line appends the next line of the unit's journal: systemd's "Starting"
// line, the boot's nodeadm lines, then systemd's "Finished" line, over and
// over.
func (u *nodeadmUnit) line(g *gen, b []byte) []byte {
	i := g.next(len(u.lines) + 2)
	switch i {
	case 0:
		b = g.journalPrefix(b, "systemd", 1)
		b = append(b, "Starting "...)
		b = append(b, u.unit...)
		b = append(b, ".service - "...)
		b = append(b, u.title...)
		return append(b, "..."...)
	case len(u.lines) + 1:
		b = g.journalPrefix(b, "systemd", 1)
		b = append(b, "Finished "...)
		b = append(b, u.unit...)
		b = append(b, ".service - "...)
		return append(b, u.title...)
	}
	b = g.journalPrefix(b, "nodeadm", u.pid)
	return append(b, u.lines[i-1]...)
}
