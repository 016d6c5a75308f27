// Shared styles first: component styles, imported by each component, come after and may override them.
import './styles/tokens.css';
import './styles/base.css';
import './styles/primitives.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider, createBrowserRouter } from 'react-router';
import { createQueryClient } from './api/query-client';
import { screens } from './routes';
import { AppShell } from './shell/AppShell';
import { HomeRedirect } from './shell/HomeRedirect';
import { NotFound } from './shell/NotFound';
import { RouteError } from './shell/RouteError';
import { LoadingState } from './ui/LoadingState';

const queryClient = createQueryClient();

const router = createBrowserRouter([
  {
    path: '/',
    element: <AppShell />,
    errorElement: <RouteError />,
    hydrateFallbackElement: <LoadingState label="Loading the console" />,
    children: [
      { index: true, element: <HomeRedirect /> },
      ...screens.map((screen) => ({
        path: screen.path,
        lazy: async () => ({ Component: (await screen.load()).default }),
        errorElement: <RouteError inline />,
      })),
      { path: '*', element: <NotFound /> },
    ],
  },
]);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
