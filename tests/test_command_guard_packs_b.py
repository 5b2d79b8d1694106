"""The command_guard packs git, databases, containers, cloud, platforms, frameworks and backups: each rule
catches its command and leaves a similar ordinary one alone, and over the public dcg regression
corpus every git deny case is caught and no allow case is flagged (but the ones named below)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hermes_hooks.builtin_plugins.command_guard.flags import positionals, short
from hermes_hooks.builtin_plugins.command_guard.packs import all_packs
from hermes_hooks.builtin_plugins.command_guard.packs._cli import effective
from hermes_hooks.builtin_plugins.command_guard.rules import Rulebook

from hermes_hooks.shell_syntax import Command, Redirect

MINE = ("git", "databases", "containers", "cloud", "platforms", "frameworks", "backups")
BOOKS = {name: Rulebook(all_packs()[name].rules) for name in MINE}
ALL_MINE = Rulebook(rule for name in MINE for rule in all_packs()[name].rules)
CORPUS = Path("/work/shared/corpora/destructive-command-guard")


def found(pack: str, line: str) -> set[str]:
    """The rule ids of ``pack`` that the line breaks."""
    return {f.rule.id for f in BOOKS[pack].judge(line).findings}


CASES: list[tuple[str, str, str]] = [
    # (rule id, a line it catches, a similar ordinary line)
    ("git.reset-hard", "git reset --hard HEAD~5", "git reset --soft HEAD~1"),
    # git-extras subcommands, as `git sub` or `git-sub`
    ("git.rewrite-history", "git obliterate .env config/keys.yml", "git summary"),
    ("git.rewrite-history", "git-obliterate build.log", "git-summary"),
    ("git.rewrite-history", "git reauthor --old-email a@x --use-config", "git authors --list"),
    ("git.push-delete", "git delete-branch old-feature", "git create-branch new-feature"),
    ("git.push-delete", "git delete-tag v0.9.1", "git tag v0.9.2"),
    ("git.push-protected", "git delete-branch main", "git branch -d old-feature"),
    ("git.extras-discard", "git -C repo clear", "git -C repo status --short"),
    ("git.extras-discard", "git-clear-soft", "git stash list"),
    ("git.extras-discard", "git reset-file src/app.py HEAD~2", "git diff HEAD~2 -- src/app.py"),
    ("git.extras-discard", "git force-clone -b dev https://example.com/r.git r", "git clone r"),
    ("git.extras-discard", "git undo --hard 2", "git undo"),
    ("git.extras-discard", "git delete-squashed-branches main", "git-delete-merged-branches"),
    ("git.extras-discard", "git fresh-branch gh-pages", "git create-branch gh-pages"),
    ("git.extras-discard", "git delete-submodule lib/vendor", "git submodule status"),
    ("git.reset-hard", "git -C repo -c user.name=x reset --hard", "git -C repo reset HEAD~1"),
    (
        "git.reset-hard",
        "git --git-dir=.git --work-tree . reset --hard",
        "git --git-dir=.git status",
    ),
    ("git.reset-hard", "git reset --ha", "git reset --help"),
    ("git.clean-force", "git clean -fdx", "git clean -n"),
    ("git.clean-force", "git clean --force -d", "git clean -nfd"),
    ("git.clean-force", "git -c clean.requireForce=false clean -d", "git clean -d"),
    ("git.push-force", "git push -f origin feature", "git push origin feature"),
    ("git.push-force", "git push origin +feature", "git push origin feature:feature"),
    ("git.push-force", "git push --mirror backup", "git push --tags backup"),
    (
        "git.push-force-with-lease",
        "git push --force-with-lease origin feat",
        "git push -u origin feat",
    ),
    ("git.push-delete", "git push origin :feature", "git push origin feature"),
    ("git.push-delete", "git push --delete origin v1.0", "git push origin v1.0"),
    ("git.push-protected", "git push --force origin main", "git push origin main"),
    ("git.push-protected", "git push --force=true origin main", "git fetch --force origin main"),
    ("git.push-protected", "git push origin --delete master", "git push origin master"),
    ("git.branch-force-delete", "git branch -D feature", "git branch -d feature"),
    ("git.branch-force-delete", "git branch --delete --force feature", "git branch -a"),
    ("git.checkout-discard", "git checkout -- .", "git checkout -b feature/one"),
    ("git.checkout-discard", "git checkout -f main", "git checkout main"),
    ("git.checkout-discard", "git checkout HEAD -- src/", "git checkout HEAD --"),
    ("git.checkout-discard", "git checkout -- notes.txt", "git checkout -b notes"),
    ("git.checkout-discard", "git checkout HEAD~1 src/app.py", "git checkout -b fix HEAD~1"),
    ("git.checkout-discard", "git checkout notes.txt", "git checkout release-1.2"),
    ("git.checkout-discard", "git checkout --ours app.py", "git checkout feature/login"),
    ("git.restore-worktree", "git restore .", "git restore --staged ."),
    ("git.restore-worktree", "git restore --staged --worktree .", "git restore --staged file.txt"),
    ("git.restore-worktree", "git restore notes.txt", "git restore -S notes.txt"),
    ("git.restore-worktree", "git restore -s a1b2c3d notes.txt", "git restore --staged -s HEAD~ x"),
    ("git.switch-discard", "git switch --discard-changes main", "git switch -c feature"),
    ("git.stash-drop", "git stash drop stash@{0}", "git stash pop"),
    ("git.stash-clear", "git stash clear", "git stash list"),
    ("git.rewrite-history", "git filter-branch --tree-filter 'rm x' HEAD", "git log --all"),
    ("git.rewrite-history", "git filter-repo --path secrets --invert-paths", "git show HEAD"),
    ("git.reflog-expire", "git reflog expire --expire=now --all", "git reflog show"),
    ("git.prune-unreachable", "git gc --prune=now --aggressive", "git gc"),
    ("git.prune", "git prune", "git prune --dry-run"),
    (
        "git.update-ref-delete",
        "git update-ref -d refs/heads/old",
        "git update-ref refs/heads/x HEAD",
    ),
    ("git.worktree-remove-force", "git worktree remove --force ../wt", "git worktree remove ../wt"),
    ("git.rm-force", "git rm -rf src", "git rm -r --cached build"),
    ("git.submodule-deinit-force", "git submodule deinit -f --all", "git submodule update --init"),
    ("databases.sql-drop-database", 'psql -c "DROP DATABASE prod"', 'psql -c "SELECT 1"'),
    (
        "databases.sql-drop-database",
        "mysql -u root -e 'drop database app'",
        "mysql -e 'show databases'",
    ),
    (
        "databases.sql-drop-database",
        'cqlsh -e "DROP KEYSPACE app"',
        'cqlsh -e "DESCRIBE KEYSPACES"',
    ),
    (
        "databases.sql-drop-database",
        'clickhouse client -q "DROP DATABASE d"',
        "clickhouse client -q 'SELECT 1'",
    ),
    (
        "databases.sql-drop-database",
        'cockroach sql -e "DROP DATABASE d"',
        "cockroach sql -e 'SHOW TABLES'",
    ),
    (
        "databases.sql-drop-table",
        'psql -h db -c "drop table users;"',
        "psql -c \"SELECT 'DROP TABLE x'\"",
    ),
    ("databases.sql-drop-table", 'sqlite3 app.db "DROP TABLE users"', "sqlite3 app.db .tables"),
    (
        "databases.sql-drop-table",
        'clickhouse-client --query "DROP TABLE t"',
        "clickhouse-client --query 'SELECT 1'",
    ),
    (
        "databases.sql-truncate",
        'psql --command="TRUNCATE users"',
        'psql --command="SELECT count(*) FROM users"',
    ),
    (
        "databases.sql-delete-all",
        'psql -c "DELETE FROM users"',
        'psql -c "DELETE FROM users WHERE id = 3"',
    ),
    (
        "databases.sql-update-all",
        "mysql -e 'UPDATE users SET admin=1'",
        "mysql -e 'UPDATE users SET admin=1 WHERE id=2'",
    ),
    ("databases.dropdb", "dropdb app", "createdb app"),
    ("databases.dropdb", "mysqladmin -u root -p drop app", "mysqladmin -u root status"),
    ("databases.dropuser", "dropuser bob", "createuser bob"),
    (
        "databases.redis-flushall",
        "redis-cli -h cache -p 6379 flushall",
        "redis-cli -h cache get flushall",
    ),
    ("databases.redis-flushdb", "redis-cli -n 2 FLUSHDB", "redis-cli ping"),
    (
        "databases.redis-flushall",
        "printf 'FLUSHALL\\n' | redis-cli",
        "printf 'PING\\n' | redis-cli",
    ),
    (
        "databases.sql-drop-table",
        "cat <<EOF | psql\nDROP TABLE t;\nEOF",
        "cat <<EOF\nDROP TABLE t;\nEOF",
    ),
    ("databases.sql-drop-database", 'mysql <<< "drop database app"', "mysql < drop.sql"),
    (
        "databases.mongo-drop-database",
        'mongosh --eval "db.dropDatabase()"',
        'mongosh --eval "db.stats()"',
    ),
    (
        "databases.mongo-drop-collection",
        "mongo app --eval 'db.users.drop()'",
        "mongo app --eval 'db.users.find()'",
    ),
    (
        "databases.mongo-drop-collection",
        "mongosh --eval 'db.u.deleteMany({})'",
        "mongosh --eval 'db.u.deleteMany({a: 1})'",
    ),
    ("databases.etcd-delete-range", 'etcdctl del --prefix ""', 'etcdctl get --prefix ""'),
    (
        "databases.influx-delete",
        "influx delete --bucket b --start 1970-01-01T00:00:00Z",
        "influx bucket list",
    ),
    ("databases.restore-drop", "pg_restore -c -d app dump.tar", "pg_restore -d app dump.tar"),
    ("databases.restore-drop", "mongorestore --drop dump/", "mongorestore dump/"),
    ("containers.system-prune", "docker system prune -af", "docker system df"),
    ("containers.system-prune", "docker -H tcp://h:2375 system prune", "docker -H tcp://h:2375 ps"),
    ("containers.system-prune", "nerdctl system prune", "nerdctl ps"),
    ("containers.system-reset", "podman system reset", "podman system info"),
    ("containers.prune", "docker image prune -a", "docker image ls --filter dangling=true"),
    ("containers.prune", "podman image prune --force", "podman image ls"),
    ("containers.prune", "podman pod prune", "podman pod ps"),
    ("containers.prune", "nerdctl container prune -f", "nerdctl container ls -a"),
    ("containers.prune", "finch image prune -a", "finch images"),
    ("containers.prune", "buildah rmi --prune", "buildah rmi localhost/app:old"),
    ("containers.remove-all", "buildah rm -a", "buildah rm app-working-container"),
    ("containers.prune", "docker network prune -f", "docker network ls"),
    ("containers.prune", "docker container prune", "docker container ls"),
    ("containers.remove-all", "docker rm -f $(docker ps -aq)", "docker rm -f web"),
    ("containers.remove-all", "docker rmi -f $(docker images -q)", "docker rmi nginx:old"),
    ("containers.remove-all", "podman rm --all", "podman rm web"),
    ("containers.volume-delete", "docker volume prune", "docker volume ls"),
    ("containers.volume-delete", "docker volume rm pgdata", "docker volume inspect pgdata"),
    ("containers.volume-delete", "docker system prune --volumes", "docker system df -v"),
    ("containers.volume-delete", "docker compose down -v", "docker compose down"),
    ("containers.volume-delete", "docker-compose -f x.yml down --volumes", "docker-compose up -d"),
    (
        "containers.kubectl-delete-namespace",
        "kubectl delete namespace prod",
        "kubectl get namespace prod",
    ),
    ("containers.kubectl-delete-namespace", "kubectl delete ns/prod", "kubectl describe ns/prod"),
    ("containers.kubectl-delete-namespace", "oc delete project demo", "oc get project demo"),
    ("containers.kubectl-delete-namespace", "k3s kubectl delete ns demo", "k3s kubectl get ns"),
    ("containers.kubectl-delete-crd", "kubectl delete crd widgets.example.com", "kubectl get crd"),
    (
        "containers.kubectl-delete-all-namespaces",
        "kubectl delete pods -A --all",
        "kubectl get pods -A",
    ),
    (
        "containers.kubectl-delete-all",
        "kubectl get pods -o name | xargs kubectl delete",
        "kubectl get pods -o name | xargs kubectl describe",
    ),
    (
        "containers.kubectl-delete-all",
        "kubectl delete all --all -n dev",
        "kubectl get pod web-1 -n dev",
    ),
    ("containers.kubectl-delete-storage", "kubectl delete pvc data-0", "kubectl get pvc"),
    ("containers.kubectl-delete-node", "kubectl delete node n1", "kubectl cordon n1"),
    (
        "containers.kubectl-delete-manifest",
        "kubectl delete -f app.yaml",
        "kubectl delete -f app.yaml --dry-run=client",
    ),
    ("containers.kubectl-drain", "kubectl drain n1 --ignore-daemonsets", "kubectl uncordon n1"),
    (
        "containers.kubectl-scale-zero",
        "kubectl scale deploy web --replicas=0",
        "kubectl scale deploy web --replicas=3",
    ),
    ("containers.helm-uninstall", "helm uninstall web -n prod", "helm uninstall web --dry-run"),
    ("containers.crictl-remove-all", "crictl rmi --all", "crictl rmi abc123"),
    ("containers.local-cluster-delete", "minikube delete --all", "minikube stop"),
    ("containers.local-cluster-delete", "kind delete cluster --name dev", "kind create cluster"),
    ("containers.local-cluster-delete", "k3d cluster delete dev", "k3d cluster list"),
    ("cloud.terraform-destroy", "terraform destroy", "terraform plan"),
    (
        "cloud.terraform-destroy",
        "terraform -chdir=infra apply -destroy -auto-approve",
        "terraform plan -destroy",
    ),
    ("cloud.terraform-destroy", "tofu destroy", "tofu destroy -help"),
    ("cloud.terraform-destroy", "terragrunt run-all destroy", "terragrunt run-all plan"),
    ("cloud.terraform-auto-approve", "terraform apply -auto-approve", "terraform apply"),
    ("cloud.terraform-state", "terraform state rm aws_instance.web", "terraform state list"),
    ("cloud.pulumi-destroy", "pulumi destroy --yes", "pulumi preview"),
    ("cloud.pulumi-stack-rm", "pulumi stack rm dev", "pulumi stack ls"),
    ("cloud.stack-destroy", "cdk destroy --force", "cdk diff"),
    ("cloud.stack-destroy", "serverless remove --stage dev", "serverless deploy"),
    ("cloud.stack-destroy", "sam delete --no-prompts", "sam build"),
    ("cloud.stack-destroy", "fly apps destroy myapp", "fly apps list"),
    ("cloud.stack-destroy", "eksctl delete cluster --name x", "eksctl get cluster"),
    (
        "cloud.aws-destroy",
        "aws ec2 terminate-instances --instance-ids i-1",
        "aws ec2 describe-instances",
    ),
    (
        "cloud.aws-destroy",
        "aws --region eu-west-1 rds delete-db-instance --db-instance-identifier d",
        "aws rds describe-db-instances",
    ),
    ("cloud.aws-destroy", "aws kms schedule-key-deletion --key-id k", "aws kms list-keys"),
    (
        "cloud.aws-destroy",
        "aws dynamodb delete-table --table-name t",
        "aws dynamodb ec2 terminate-instances help",
    ),
    (
        "cloud.aws-delete",
        "aws lambda delete-function --function-name f",
        "aws lambda list-functions",
    ),
    ("cloud.aws-delete", "aws iam delete-user --user-name u", "aws iam get-user"),
    ("cloud.bucket-delete", "aws s3 rb s3://b --force", "aws s3 ls s3://b"),
    (
        "cloud.bucket-delete",
        "aws s3 rm s3://b --recursive",
        "aws s3 rm s3://b --recursive --dryrun",
    ),
    ("cloud.bucket-delete", "gsutil rb gs://b", "gsutil ls gs://b"),
    ("cloud.bucket-delete", "gcloud storage rm -r gs://b", "gcloud storage ls gs://b"),
    (
        "cloud.objects-delete-recursive",
        "aws s3 rm s3://b/logs/ --recursive",
        "aws s3 cp x s3://b/logs/",
    ),
    ("cloud.objects-delete-recursive", "aws s3 sync . s3://b --delete", "aws s3 sync . s3://b"),
    (
        "cloud.objects-delete-recursive",
        "gsutil -m rm -r gs://b/tmp",
        "gsutil -m cp -r x gs://b/tmp",
    ),
    (
        "cloud.gcloud-destroy",
        "gcloud projects delete my-project",
        "gcloud projects describe my-project",
    ),
    (
        "cloud.gcloud-destroy",
        "gcloud --project p sql instances delete db",
        "gcloud sql instances list",
    ),
    (
        "cloud.gcloud-delete",
        "gcloud compute instances delete vm1 --zone z",
        "gcloud compute instances list",
    ),
    ("cloud.azure-destroy", "az group delete -n rg --yes", "az group show -n rg"),
    ("cloud.azure-destroy", "az keyvault purge -n kv", "az keyvault list"),
    ("cloud.azure-delete", "az vm delete -n vm -g rg", "az vm list -g rg"),
    ("cloud.cli-delete", "doctl compute droplet delete web", "doctl compute droplet list"),
    ("cloud.cli-delete", "hcloud server delete web", "hcloud server list"),
    (
        "cloud.cli-delete",
        "oci compute instance terminate --instance-id x",
        "oci compute instance list",
    ),
    (
        "cloud.cli-delete",
        "aliyun ecs DeleteInstance --InstanceId i",
        "aliyun ecs DescribeInstances",
    ),
    ("cloud.cli-delete", "linode-cli linodes delete 123", "linode-cli linodes list"),
    ("platforms.repo-delete", "gh repo delete me/x --yes", "gh repo view me/x"),
    ("platforms.repo-delete", "glab repo delete me/x", "glab repo clone me/x"),
    ("platforms.app-delete", "heroku apps:destroy --app x --confirm x", "heroku apps:info --app x"),
    ("platforms.app-delete", "heroku pg:reset DATABASE --confirm x", "heroku pg:info"),
    ("platforms.app-delete", "netlify sites:delete abc", "netlify deploy"),
    ("platforms.app-delete", "vercel project rm x", "vercel project ls"),
    ("platforms.app-delete", "supabase projects delete ref", "supabase projects list"),
    ("platforms.resource-delete", "gh release delete v1 -y", "gh release list"),
    ("platforms.resource-delete", "gh secret delete TOKEN", "gh secret list"),
    ("platforms.resource-delete", "gh cs delete -c shiny-space-xyz", "gh cs list"),
    ("platforms.resource-delete", "gh codespace delete --all --force", "gh codespace ssh"),
    ("platforms.resource-delete", "gh gist delete 0123abcd --yes", "gh gist view 0123abcd"),
    ("platforms.resource-delete", "gh run delete 4242", "gh run view 4242"),
    ("platforms.resource-delete", "gh cache delete --all", "gh cache list"),
    ("platforms.resource-delete", "gh label delete wontfix --yes", "gh label create triage"),
    ("platforms.resource-delete", "gh repo deploy-key delete 17", "gh repo deploy-key list"),
    (
        "platforms.resource-delete",
        "gh project item-delete 3 --owner me --id I1",
        "gh alias delete co",
    ),
    ("platforms.resource-delete", "glab mr delete 12", "glab mr close 12"),
    ("platforms.resource-delete", "glab snippet delete 9", "glab snippet create notes.md"),
    ("platforms.resource-delete", "tea labels rm 3", "tea labels ls"),
    ("platforms.resource-delete", "vercel remove my-app --yes", "vercel deploy"),
    ("platforms.resource-delete", "railway down", "railway up"),
    ("platforms.database-reset-remote", "supabase db reset --linked", "supabase db push"),
    ("platforms.database-reset", "supabase db reset", "supabase db diff"),
    (
        "platforms.firestore-delete-all",
        "firebase firestore:delete --all-collections",
        "firebase deploy",
    ),
    (
        "platforms.firestore-delete",
        "firebase firestore:delete -r /users",
        "firebase firestore:indexes",
    ),
    ("platforms.api-delete", "gh api -X DELETE repos/me/x", "gh api repos/me/x"),
    ("platforms.package-unpublish", "npm unpublish pkg@1.0.0", "npm unpublish pkg --dry-run"),
    (
        "platforms.package-unpublish",
        "cargo yank --version 1.0.0",
        "cargo yank --version 1.0.0 --undo",
    ),
    ("frameworks.rails-db-reset", "bin/rails db:reset", "bin/rails db:migrate"),
    ("frameworks.rails-db-reset", "bundle exec rake db:schema:load", "bundle exec rake db:migrate"),
    ("frameworks.rails-db-reset", "rails db:setup", "rails db:prepare"),
    (
        "frameworks.production-db-reset",
        "RAILS_ENV=production rails db:drop",
        "RAILS_ENV=production rails db:migrate",
    ),
    (
        "frameworks.production-db-reset",
        "php artisan migrate:fresh --env=production",
        "php artisan migrate --env=production",
    ),
    (
        "frameworks.production-db-reset",
        "MIX_ENV=prod mix ecto.reset",
        "MIX_ENV=prod mix ecto.migrate",
    ),
    ("frameworks.django-flush", "python manage.py flush --noinput", "python manage.py migrate"),
    (
        "frameworks.django-flush",
        "python manage.py migrate shop zero",
        "python manage.py migrate shop 0003",
    ),
    ("frameworks.django-flush", "django-admin flush", "django-admin check"),
    ("frameworks.laravel-migrate-fresh", "php artisan migrate:fresh --seed", "php artisan migrate"),
    ("frameworks.laravel-migrate-fresh", "php artisan db:wipe", "php artisan db:seed"),
    (
        "frameworks.doctrine-drop",
        "php bin/console doctrine:database:drop --force",
        "php bin/console doctrine:database:drop",
    ),
    ("frameworks.adonis-migration-fresh", "node ace migration:fresh", "node ace migration:run"),
    ("frameworks.prisma-reset", "npx prisma migrate reset", "npx prisma migrate dev"),
    (
        "frameworks.prisma-reset",
        "pnpm exec prisma db push --force-reset",
        "pnpm exec prisma db push",
    ),
    ("frameworks.sequelize-drop", "npx sequelize-cli db:drop", "npx sequelize-cli db:migrate"),
    (
        "frameworks.knex-rollback-all",
        "npx knex migrate:rollback --all",
        "npx knex migrate:rollback",
    ),
    ("frameworks.typeorm-schema-drop", "npx typeorm schema:drop", "npx typeorm migration:run"),
    ("frameworks.drizzle-push-force", "npx drizzle-kit push --force", "npx drizzle-kit push"),
    ("frameworks.alembic-downgrade-base", "alembic downgrade base", "alembic downgrade -1"),
    (
        "frameworks.alembic-downgrade-base",
        "python -m alembic downgrade base",
        "python -m alembic upgrade head",
    ),
    ("frameworks.alembic-downgrade-base", "flask db downgrade base", "flask db upgrade"),
    ("frameworks.ecto-drop", "mix ecto.drop", "mix ecto.migrate"),
    ("frameworks.ef-database-drop", "dotnet ef database drop -f", "dotnet ef database update"),
    ("frameworks.migration-tool-reset", "flyway clean", "flyway migrate"),
    ("frameworks.migration-tool-reset", "liquibase dropAll", "liquibase update"),
    ("frameworks.migration-tool-reset", "goose postgres dsn reset", "goose postgres dsn up"),
    (
        "frameworks.migration-tool-reset",
        "migrate -path db -database x drop -f",
        "migrate -path db -database x up",
    ),
    ("databases.etcd-delete", "etcdctl del my/key", "etcdctl get my/key"),
    ("databases.etcd-delete", "etcdctl --endpoints h:2379 del k", "etcdctl put my/key v"),
    ("databases.etcd-delete-range", "etcdctl del a z", "etcdctl get a z"),
    ("containers.kubectl-delete", "kubectl delete po web-5d8f7", "kubectl logs web-5d8f7"),
    ("containers.kubectl-delete", "kubectl delete deploy web", "kubectl describe deploy web"),
    ("containers.kubectl-delete", "kubectl delete deploy/web -n staging", "kubectl get deploy/web"),
    ("containers.kubectl-delete", "kubectl delete pods -l app=web", "kubectl get pods -l app=web"),
    (
        "containers.kubectl-delete",
        "oc delete svc web",
        "kubectl delete po web --dry-run=client",
    ),
    (
        "containers.kubectl-replace-force",
        "kubectl replace --force -f pod.yaml",
        "kubectl replace -f pod.yaml",
    ),
    ("containers.helmfile-destroy", "helmfile destroy", "helmfile diff"),
    ("containers.helmfile-destroy", "helmfile -e prod -l app=web destroy", "helmfile -e prod sync"),
    ("containers.swarm-remove", "docker stack rm shop", "docker stack ls"),
    ("containers.swarm-remove", "docker service rm web", "docker service ls"),
    ("cloud.object-delete", "aws s3 rm s3://bucket/notes.txt", "aws s3 cp s3://bucket/notes.txt ."),
    (
        "cloud.object-delete",
        "aws s3 rm s3://arn:aws:s3:region:account_id:access_point/ap/object_key",
        "aws s3 rm s3://bucket/notes.txt --dryrun",
    ),
    ("cloud.object-delete", "s3cmd rm s3://bucket/object", "s3cmd ls s3://bucket"),
    ("cloud.object-delete", "s3cmd del s3://bucket/object", "s3cmd get s3://bucket/object ."),
    ("cloud.object-delete", "gsutil rm gs://bucket/object", "gsutil cp gs://bucket/object ."),
    ("cloud.bucket-delete", "s3cmd rb s3://bucket", "s3cmd mb s3://bucket"),
    (
        "cloud.bucket-delete",
        "aws s3 rm s3://arn:aws:s3:region:account_id:access_point/ap --recursive",
        "aws s3 ls s3://arn:aws:s3:region:account_id:access_point/ap",
    ),
    (
        "cloud.objects-delete-recursive",
        "s3cmd sync --delete-removed dir s3://bucket/dir/",
        "s3cmd sync dir s3://bucket/dir/",
    ),
    ("cloud.cli-delete", "doctl a d app_id", "doctl a lsd app_id"),
    ("cloud.cli-delete", "doctl compute droplet rm 123", "doctl compute droplet list"),
    ("cloud.cli-delete", "doctl -t tok compute droplet d web", "doctl -t d compute droplet list"),
    # doctl's `d` is `databases` as the first word, `droplet` after `compute`, `delete` after that
    ("cloud.cli-delete", "doctl d d my-cluster-id", "doctl d get my-cluster-id"),
    ("cloud.cli-delete", "doctl databases rm my-cluster-id", "doctl d c my-new-cluster"),
    ("cloud.cli-delete", "doctl compute d d web-1", "doctl compute d ls"),
    ("cloud.cli-delete", "doctl k c d staging", "doctl k c ls"),
    (
        "platforms.ci-pipeline-destroy",
        "fly -t target_name destroy-pipeline -p pipeline_name",
        "fly -t target_name unpause-pipeline -p pipeline_name",
    ),
    ("platforms.ci-pipeline-destroy", "fly -t ci destroy-team -n team", "fly -t ci teams"),
    ("backups.prune", "restic forget --keep-last 1 --prune", "restic forget --keep-last 1 -n"),
    ("backups.prune", "restic -r octo/demo prune", "restic -r octo/demo snapshots"),
    (
        "backups.prune",
        "borg prune --keep-within 7d --list repo_directory",
        "borg prune --dry-run --keep-within 7d repo_directory",
    ),
    ("backups.prune", "kopia snapshot expire --all --delete", "kopia snapshot expire --all"),
    (
        "backups.prune",
        "duplicity remove-older-than 6M --force file:///backup",
        "duplicity remove-older-than 6M file:///backup",
    ),
    ("backups.delete-archive", "borg delete repo_directory::Monday", "borg list repo_directory"),
    ("backups.delete-archive", "borg -r repo delete Monday", "borg -r repo info Monday"),
    ("backups.delete-archive", "kopia snapshot delete k1f2 --delete", "kopia snapshot list"),
    ("backups.delete-archive", "tarsnap -d -f nightly-old", "tarsnap -c -f nightly dir"),
    ("backups.delete-repository", "borg delete repo_directory", "borg delete --cache-only repo"),
    ("backups.delete-repository", "borg repo-delete -r repo", "borg repo-info -r repo"),
    ("backups.delete-repository", "tarsnap --nuke", "tarsnap --list-archives"),
]


@pytest.mark.parametrize(("rule_id", "caught", "ordinary"), CASES, ids=[c[0] for c in CASES])
def test_each_rule_catches_its_command_and_not_a_similar_ordinary_one(rule_id, caught, ordinary):
    pack = rule_id.split(".", 1)[0]
    assert rule_id in found(pack, caught)
    assert found(pack, ordinary) == set()


def test_every_rule_has_a_case_and_a_well_formed_description():
    tested = {c[0] for c in CASES}
    for name in MINE:
        pack = all_packs()[name]
        assert pack.name == name and pack.description
        for rule in pack.rules:
            assert rule.id in tested, rule.id
            assert re.fullmatch(rf"{name}\.[a-z0-9]+(-[a-z0-9]+)*", rule.id)
            assert rule.reason and rule.alternative and "\n" not in rule.reason + rule.alternative
            assert rule.programs and all(p for p in rule.programs)


MENTIONS = [
    'echo "git reset --hard"',
    "grep -rn 'DROP DATABASE' migrations/",
    'git commit -m "docs: never run terraform destroy or kubectl delete ns"',
    "man git-reset",
    "which kubectl terraform psql",
    "git reset --help",
    "docker system prune --help",
    "terraform destroy --help",
    "kubectl delete --help",
    "git status",
    "git log --oneline -10",
    "git diff HEAD~1",
    "git show HEAD",
    "kubectl get pods -A",
    "kubectl describe ns prod",
    "docker ps -a",
    "terraform plan",
    "aws s3 ls s3://bucket",
    "gcloud projects list",
]


@pytest.mark.parametrize("line", MENTIONS)
def test_mentions_help_and_read_only_commands_are_not_flagged(line):
    for pack in MINE:
        assert found(pack, line) == set(), pack


def test_sql_from_a_heredoc_a_herestring_or_an_echo_piped_in_is_read():
    book = BOOKS["databases"]
    heredoc = Command("psql", ("-d", "app"), redirects=(Redirect("<<", "DROP TABLE users;\n"),))
    herestring = Command("redis-cli", (), redirects=(Redirect("<<<", "FLUSHALL"),))
    piped = Command("psql", (), upstream=(Command("echo", ("DROP DATABASE app",)),))
    cat = Command("cat", (), redirects=(Redirect("<<", "TRUNCATE t;"),))
    via_cat = Command("mysql", (), upstream=(cat,))
    script = Command("psql", (), redirects=(Redirect("<", "drop.sql"),))
    ids = [{f.rule.id for f in book.findings(c)} for c in (heredoc, herestring, piped, via_cat)]
    assert ids == [
        {"databases.sql-drop-table"},
        {"databases.redis-flushall"},
        {"databases.sql-drop-database"},
        {"databases.sql-truncate"},
    ]
    assert book.findings(script) == []  # a script file is content we cannot see


def test_docker_ps_piped_into_xargs_docker_rm_means_everything():
    ps = Command("docker", ("ps", "-aq"))
    rm = Command("docker", ("rm", "-f"), via=("xargs",), upstream=(ps,))
    assert [f.rule.id for f in BOOKS["containers"].findings(rm)] == ["containers.remove-all"]
    one = Command("docker", ("rm", "-f"), via=("xargs",), upstream=(Command("cat", ("ids",)),))
    assert BOOKS["containers"].findings(one) == []


def test_django_sqlflush_piped_into_dbshell_is_a_flush():
    flush = Command("python", ("manage.py", "sqlflush"))
    shell = Command("python", ("manage.py", "dbshell"), upstream=(flush,))
    assert [f.rule.id for f in BOOKS["frameworks"].findings(shell)] == ["frameworks.django-flush"]
    assert BOOKS["frameworks"].findings(flush) == []


def test_cli_helpers():
    assert positionals(["-C", "x", "-c", "a=b", "reset", "--hard"], {"-C", "-c"}) == ("reset",)
    assert positionals(["run", "--", "destroy"]) == ("run", "destroy")
    assert short(["-fdx"], "f") and not short(["-ofoo"], "f", "o") and not short(["--", "-f"], "f")
    assert effective(Command("npx", ("prisma", "migrate", "reset"))) == (
        "prisma",
        ("migrate", "reset"),
    )
    assert effective(Command("dotnet", ("ef", "database", "drop"))) == (
        "dotnet-ef",
        ("database", "drop"),
    )
    assert effective(Command("bundle", ("exec", "rails", "db:drop"))) == ("rails", ("db:drop",))


def _corpus() -> list[tuple[str, str, str, str]]:
    """``(where, command, expected, dcg's rule id)`` of every command case of the corpus."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    cases = []
    for path in sorted(CORPUS.rglob("*.toml")):
        for case in tomllib.loads(path.read_text())["case"]:
            command = case.get("command")
            expected = case.get("expected") or case.get("expected_decision")
            if command is not None and expected in ("allow", "deny"):
                where = f"{path.relative_to(CORPUS)}: {command[:60]}"
                rule = case.get("rule_id") or case.get("expected_log", {}).get("rule_id", "")
                cases.append((where, command, expected, rule))
    return cases


FUTURE_PACKS = {
    # dcg has no containers pack yet and allows these; ours flags them on purpose.
    "docker system prune": {"containers.system-prune"},
    "docker system prune -a": {"containers.system-prune"},
    "kubectl delete namespace prod": {"containers.kubectl-delete-namespace"},
    "kubectl delete all --all": {"containers.kubectl-delete-all"},
}


def _is_ours(command: str, case_rule: str) -> bool:
    return "git" in case_rule or bool(re.search(r"(^|[\s;|&(`'\"/\\])git\s", command))


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the dcg corpus is not on this machine")
def test_the_dcg_corpus():
    missed, flagged = [], {}
    for name, command, expected, rule in _corpus():
        ids = {f.rule.id for f in ALL_MINE.judge(command).findings}
        if expected == "deny" and _is_ours(command, rule) and not ids:
            missed.append(name)
        if expected == "allow" and ids and FUTURE_PACKS.get(command) != ids:
            flagged[name] = ids
    assert missed == [] and flagged == {}
