#!/bin/bash
set -ex
# Debug
exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1

# 1. Get IMDSv2 Token & AZ
TOKEN=$(curl -X PUT "http://169.254.169.254/latest/api/token" -H "X-aws-ec2-metadata-token-ttl-seconds: 21600")
AZ=$(curl -H "X-aws-ec2-metadata-token: $TOKEN" -s http://169.254.169.254/latest/meta-data/placement/availability-zone)

# 2. Construct Labels, including the dynamic custom-eni-config
# Note: Here we mix Terraform interpolation and Bash variables
FINAL_LABELS="team=billing,nodegroup=billing-ng,eks.amazonaws.com/custom-eni-config=billing-$AZ"

# 3. Generate NodeConfig YAML
cat > /etc/eks/nodeadm-config.yaml <<CONFIG
apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  cluster:
    name: billing-prod
    apiServerEndpoint: https://ABCDEF0123456789.gr7.ap-northeast-1.eks.amazonaws.com
    certificateAuthority: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJZVENDQVFpZ0F3SUJBZ0lJR095TUs5R0NKS3N3Q2dZSUtvWkl6ajBFQXdJd0ZURVRNQkVHQTFVRUF4TUsKYTNWaVpYSnVaWFJsY3pBZUZ3MHlOVEF6TURRd05UQTJNRGRhRncwek5UQXpNREl3TlRBMk1EZGFNQlV4RXpBUgpCZ05WQkFNVENtdDFZbVZ5Ym1WMFpYTXdXVEFUQmdjcWhrak9QUUlCQmdncWhrak9QUU1CQndOQ0FBUlRjN1hVCkJkcmJnbG04WmRKVThaaURIQzRKY1hjQTNGZ2ZFVXFOK3Y3R0lRcVpJVnUya1JUMzk4cUwwZnBLTTFVbzBDK0EKN3M2ekc3cEp2Z0NGa3FRcm8wSXdRREFPQmdOVkhROEJBZjhFQkFNQ0FxUXdEd1lEVlIwVEFRSC9CQVV3QXdFQgovekFkQmdOVkhRNEVGZ1FVRUZ4UDJPTmxwNEp3RmZrTHQyVEtQZjBla0RZd0NnWUlLb1pJemowRUF3SURSd0F3ClJBSWdHTUdJWmMzaU5aeTZNWjk3VE9sZXhCNG9Ea2NmRnNVLzU5WUxZK2gzMUM0Q0lDaStNaUNUTGw0Uk0zQTYKMmxVRzZ4UzhrZjk2elRPd01pQndXQ0kzcU1DOAotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==
    cidr: 192.168.0.0/16
  kubelet:
    flags:
      - --node-labels=$FINAL_LABELS
CONFIG
echo 'Configuration file written to /etc/eks/nodeadm-config.yaml'

# 4. Execute nodeadm init
echo 'Executing nodeadm init...'
/usr/bin/nodeadm init
