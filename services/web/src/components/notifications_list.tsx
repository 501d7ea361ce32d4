/**
 * The list the Notifications button opens (loaded the first time it is opened): newest first,
 * unread ones marked, "Mark all read", "Show older"; choosing one marks it read and opens its
 * deep link.
 */
import { useState } from "preact/hooks";
import { navigate } from "../router.tsx";
import {
  loadNotifications,
  loadOlderNotifications,
  markAllNotificationsRead,
  markNotificationsRead,
  type Notification,
  notifications,
  notificationsError,
  olderCursor,
  unreadCount,
} from "../state/notifications.ts";
import { ErrorMessage } from "./error_message.tsx";
import { fullDate, relativeTime } from "./idea_time.tsx";
import { Loading } from "./loading.tsx";
import { describeNotification, notificationHref } from "./notification_text.ts";

export const PANEL_ID = "notifications-panel";

export default function NotificationList({ onClose }: { onClose: () => void }) {
  const items = notifications.value;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const unread = unreadCount.value;

  const openOne = async (n: Notification, href: string | null) => {
    setError(null);
    if (href) {
      // Opening it matters more than the mark: go at once; a failed mark leaves it unread.
      if (!n.read_at) void markNotificationsRead([n.notification_id]).catch(() => {});
      onClose();
      navigate(href);
      return;
    }
    try {
      if (!n.read_at) await markNotificationsRead([n.notification_id]);
    } catch (err) {
      setError(err);
    }
  };

  const markAll = async () => {
    setBusy(true);
    setError(null);
    try {
      await markAllNotificationsRead();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const older = async () => {
    setBusy(true);
    setError(null);
    try {
      await loadOlderNotifications();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section id={PANEL_ID} class="notifications-panel" aria-labelledby="notifications-heading">
      <div class="notifications-head">
        <h2 id="notifications-heading">Notifications</h2>
        <button
          type="button"
          class="comment-link"
          disabled={busy || unread === 0}
          onClick={() => void markAll()}
        >
          Mark all read
        </button>
      </div>
      <p class="notifications-summary" role="status">
        {items ? (unread === 0 ? "All read" : `${unread} unread`) : ""}
      </p>
      {!items && !notificationsError.value && <Loading label="Loading notifications" />}
      {!items && notificationsError.value
        ? (
          <ErrorMessage
            error={notificationsError.value}
            onRetry={() => void loadNotifications().catch(() => {})}
          />
        )
        : null}
      {items && items.length === 0 && (
        <p class="notifications-empty">
          Nothing yet. You will find here mentions, review requests and decisions, comments on your
          posts, publishing news and actions for you.
        </p>
      )}
      {items && items.length > 0 && (
        <ul class="notifications-list" aria-label="Newest first">
          {items.map((n) => {
            const { text, detail } = describeNotification(n);
            const href = notificationHref(n);
            const unreadOne = !n.read_at;
            const body = (
              <>
                <span class="notification-dot" aria-hidden="true" />
                <span class="notification-body">
                  {unreadOne && <span class="visually-hidden">Unread:</span>}
                  <span class="notification-text">{text}</span>
                  {detail && <span class="notification-detail">{detail}</span>}
                  <time
                    class="notification-time"
                    dateTime={n.created_at}
                    title={fullDate(n.created_at)}
                  >
                    {relativeTime(n.created_at)}
                  </time>
                </span>
              </>
            );
            return (
              <li key={n.notification_id} class={unreadOne ? "is-unread" : undefined}>
                {href
                  ? (
                    <a
                      class="notification"
                      href={href}
                      onClick={(e) => {
                        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) {
                          // A new tab opens it: mark it read here too.
                          if (unreadOne) void markNotificationsRead([n.notification_id]);
                          return;
                        }
                        e.preventDefault();
                        void openOne(n, href);
                      }}
                    >
                      {body}
                    </a>
                  )
                  : (
                    <button
                      type="button"
                      class="notification"
                      onClick={() => void openOne(n, null)}
                    >
                      {body}
                    </button>
                  )}
              </li>
            );
          })}
        </ul>
      )}
      <ErrorMessage error={error} />
      {items && olderCursor.value && (
        <button
          type="button"
          class="button secondary notifications-older"
          disabled={busy}
          onClick={() => void older()}
        >
          Show older
        </button>
      )}
    </section>
  );
}
