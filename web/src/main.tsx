// Tokens and base styles first: feature stylesheets imported by components must come after them.
import './theme/tokens.css';
import './ui/sectionTitle.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App } from './App';
import { hasStatus, reportUnauthenticated } from './lib/api';
import { installBindings } from './socket/topicRegistry';
import { TOPIC_BINDINGS } from './topicBindings';

// Every topic's binding, before the socket can deliver an event.
installBindings(TOPIC_BINDINGS);

// Any query or mutation answered 401 (whichever fetch helper made it) means the session is gone.
const on401 = (error: unknown) => {
  if (hasStatus(error, 401)) reportUnauthenticated();
};

// Server state arrives over the socket; nothing here should refetch on focus or on a timer.
const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: on401 }),
  mutationCache: new MutationCache({ onError: on401 }),
  defaultOptions: { queries: { refetchOnWindowFocus: false, refetchOnReconnect: false, retry: false } },
});

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');

// The socket opens inside the sign-in gate (features/auth/RequireAuth), once someone is signed in.
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <App />
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
