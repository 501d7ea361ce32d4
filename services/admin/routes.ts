import type { ServiceApp } from "../../shared/http/service_app.ts";
import { mountBackupRoutes } from "./backup_routes.ts";
import { adminGuard } from "./guard.ts";
import type { AdminOperations, BackupOperations } from "./operations.ts";
import { mountUserRoutes } from "./user_routes.ts";
import { mountWorkspaceRoutes } from "./workspace_routes.ts";

/** The spec's Admin routes, every one behind the admin guard (403 before anything else). */
export function mountAdminRoutes(
  app: ServiceApp,
  deps: { admin: AdminOperations; backups: BackupOperations },
): void {
  app.use("/api/admin/*", adminGuard());
  app.use("/api/admin", adminGuard());
  mountUserRoutes(app, deps.admin);
  mountWorkspaceRoutes(app, deps.admin);
  mountBackupRoutes(app, deps.backups);
}
